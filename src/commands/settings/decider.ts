import { isDeepStrictEqual } from "node:util";
import type {
  Configuration,
  ConfigurationEvent,
  TemplateCode,
  TemplateEvent,
} from "../../events/settings.ts";
import type { Decider } from "../../platform/decider.ts";
import { unprocessable } from "../../platform/errors.ts";
import { templateProblems } from "./templateCheck.ts";

/**
 * The settings' deciders (docs/settings.md). Each document is saved whole: a save equal to what
 * is in force writes nothing (same version, same ETag), so a client may PUT back what it GOT.
 */

/** Equal whatever the order of keys (the log keeps JSON as jsonb, which reorders them). */
const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);

// Configuration: stream configuration-<tenant>. The schema (src/events/settings.ts) checked the body.

export type ConfigurationState = { saved: Configuration | null };
export type ConfigurationCommand = { type: "SaveConfiguration"; configuration: Configuration };

export const configurationDecider: Decider<ConfigurationState, ConfigurationCommand, ConfigurationEvent> = {
  initialState: () => ({ saved: null }),
  evolve: (_state, event) => {
    switch (event.type) {
      case "ConfigurationSaved":
        return { saved: event.data };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "SaveConfiguration":
        return state.saved && same(state.saved, command.configuration)
          ? []
          : [{ type: "ConfigurationSaved", data: command.configuration }];
    }
  },
};

// Templates: stream template-<tenant>-<code>. Source null: the built-in default applies.

export type TemplateState = { source: string | null };
export type TemplateCommand =
  | { type: "SaveTemplate"; code: TemplateCode; source: string }
  | { type: "ResetTemplate"; code: TemplateCode };

/** A template that does not parse or render its sample is refused whole: 422, nothing saved. */
const save = (
  command: Extract<TemplateCommand, { type: "SaveTemplate" }>,
  state: TemplateState,
): TemplateEvent[] => {
  const problems = templateProblems(command.code, command.source);
  if (problems.length > 0)
    throw unprocessable(
      `Template ${command.code} cannot be saved: ${problems[0]}`,
      problems.map((message) => ({ field: "source", message })),
    );
  if (state.source === command.source) return [];
  return [{ type: "TemplateSaved", data: { code: command.code, source: command.source } }];
};

export const templateDecider: Decider<TemplateState, TemplateCommand, TemplateEvent> = {
  initialState: () => ({ source: null }),
  evolve: (_state, event) => {
    switch (event.type) {
      case "TemplateSaved":
        return { source: event.data.source };
      case "TemplateReset":
        return { source: null };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case "SaveTemplate":
        return save(command, state);
      case "ResetTemplate":
        return state.source === null ? [] : [{ type: "TemplateReset", data: { code: command.code } }];
    }
  },
};
