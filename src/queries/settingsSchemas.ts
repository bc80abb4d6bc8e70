import { z } from "zod";
import {
  configurationShape,
  REMINDER_KINDS,
  TEMPLATE_CODES,
  templateSourceSchema,
} from "../events/settings.ts";
import { timestamp } from "../platform/http/responses.ts";
import { ignored } from "../platform/http/schemas.ts";

/** Request and response schemas of /api/configurations and /api/templates (docs/settings.md). */

const versioned = {
  customised: z.boolean().describe("false: nothing saved (or reset), the built-in default applies"),
  version: z.int().min(0).describe("How many times it was saved or reset (0: never)"),
  updated_at: timestamp.nullable(),
};
const readOnly = {
  customised: ignored(z.boolean()),
  version: ignored(z.int()),
};

export const configurationBody = z.strictObject({ ...configurationShape, ...versioned }).meta({
  id: "Configuration",
  description: `The tenant's reminder levels (kinds ${REMINDER_KINDS.join(", ")}; never a fee: loi 89-462 art. 4 i and p), receipt numbering and sender identity`,
});

/** PUT replaces the whole configuration; what a GET shows besides may come back and is ignored. */
export const configurationInput = z
  .strictObject({ ...configurationShape, ...readOnly })
  .meta({ id: "SaveConfiguration" });

export const templateCode = z.enum(TEMPLATE_CODES, {
  error: `Unknown template code: use ${TEMPLATE_CODES.join(", ")}`,
});
export const templateParams = z.strictObject({ code: templateCode });

export const templateSummary = z
  .strictObject({ code: templateCode, ...versioned })
  .meta({ id: "TemplateSummary" });

export const templateBody = z
  .strictObject({
    code: templateCode,
    source: z
      .string()
      .nullable()
      .describe("The tenant's handlebars source; null: the built-in default applies"),
    ...versioned,
  })
  .meta({ id: "Template" });

export const templateInput = z
  .strictObject({ source: templateSourceSchema, code: ignored(templateCode), ...readOnly })
  .meta({ id: "SaveTemplate" });
