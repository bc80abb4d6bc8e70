import { describe, expect, it } from "vitest";
import { configurationDecider, templateDecider } from "../../src/commands/settings/decider.ts";
import {
  MAX_BLOCK_DEPTH,
  MAX_EACH_DEPTH,
  MAX_SUBEXPRESSION_DEPTH,
  MAX_TEMPLATE_TAGS,
  templateProblems,
} from "../../src/commands/settings/templateCheck.ts";
import {
  type Configuration,
  type ConfigurationEvent,
  configurationSchema,
  DEFAULT_REMINDER_LEVELS,
  MAX_TEMPLATE_CHARS,
  TEMPLATE_CODES,
  TEMPLATE_SAMPLES,
  type TemplateEvent,
  templateSourceSchema,
} from "../../src/events/settings.ts";
import { missingVariables } from "../../src/queries/settings.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const configuration: Configuration = {
  reminder_levels: DEFAULT_REMINDER_LEVELS,
  receipt_numbering: { prefix: "Q", reset: "YEARLY" },
  sender: { name: "SCI Les Tilleuls", email: "gestion@example.org", address: null },
};
const saved: ConfigurationEvent = { type: "ConfigurationSaved", data: configuration };

describe("configuration decider", () => {
  const { given } = deciderSpec(configurationDecider);
  it("saves the whole configuration; the same one again writes nothing, another one a new version", () => {
    given([]).when({ type: "SaveConfiguration", configuration }).then([saved]);
    // Key order does not matter (the log stores jsonb, which reorders keys).
    const reordered = {
      sender: configuration.sender,
      receipt_numbering: configuration.receipt_numbering,
      reminder_levels: configuration.reminder_levels,
    };
    given([saved]).when({ type: "SaveConfiguration", configuration: reordered }).thenNothing();
    const other = { ...configuration, receipt_numbering: { prefix: "R", reset: "YEARLY" as const } };
    given([saved])
      .when({ type: "SaveConfiguration", configuration: other })
      .then([{ type: "ConfigurationSaved", data: other }]);
  });
});

const source = "Quittance {{receipt.number}} : {{money call.total_amount}}";
const templateSaved: TemplateEvent = { type: "TemplateSaved", data: { code: "quittance", source } };
const reset: TemplateEvent = { type: "TemplateReset", data: { code: "quittance" } };

describe("template decider", () => {
  const { given } = deciderSpec(templateDecider);
  it("saves a template that renders its sample; the same source again writes nothing", () => {
    given([]).when({ type: "SaveTemplate", code: "quittance", source }).then([templateSaved]);
    given([templateSaved]).when({ type: "SaveTemplate", code: "quittance", source }).thenNothing();
    given([templateSaved, reset])
      .when({ type: "SaveTemplate", code: "quittance", source })
      .then([templateSaved]);
  });
  it("refuses a template that does not render (422 on source), whatever was saved before", () => {
    given([templateSaved])
      .when({ type: "SaveTemplate", code: "quittance", source: "{{#each lessees}}" })
      .thenRefuses(422, /Template quittance cannot be saved: Parse error/, ["source"]);
  });
  it("resets to the default once; a default template resets to nothing", () => {
    given([templateSaved]).when({ type: "ResetTemplate", code: "quittance" }).then([reset]);
    given([templateSaved, reset]).when({ type: "ResetTemplate", code: "quittance" }).thenNothing();
    given([]).when({ type: "ResetTemplate", code: "quittance" }).thenNothing();
  });
});

describe("template check (the boundary of what may be saved)", () => {
  it("every code's sample renders a template using each of its variables", () => {
    for (const code of TEMPLATE_CODES) {
      const uses = Object.keys(TEMPLATE_SAMPLES[code]).map((name) => `{{#if ${name}}}${name}{{/if}}`);
      expect(templateProblems(code, uses.join("\n")), code).toEqual([]);
    }
  });

  it("a variable of another code is refused: a reminder has no receipt, a quittance no reminder", () => {
    expect(templateProblems("quittance", "{{receipt.number}}")).toEqual([]);
    expect(templateProblems("reminder", "{{receipt.number}}")[0]).toMatch(
      /Unknown variable 'receipt\.number'/,
    );
    expect(templateProblems("reminder", "{{reminder.days_late}}")).toEqual([]);
    expect(templateProblems("quittance", "{{reminder.days_late}}")[0]).toMatch(/Unknown variable/);
    expect(
      templateProblems("arrears-statement", "{{#each arrears.periods}}{{money remaining_amount}}{{/each}}"),
    ).toEqual([]);
    expect(
      templateProblems("amendment-notice", "{{amendment.title}} {{date amendment.effective_date}}"),
    ).toEqual([]);
  });

  it("names inside each and with are checked by the trial render (strict)", () => {
    expect(templateProblems("quittance", "{{#each lessees}}{{last_name}}{{/each}}")).toEqual([]);
    expect(templateProblems("quittance", "{{#each lessees}}{{surname}}{{/each}}")[0]).toMatch(
      /"surname" not defined/,
    );
    expect(templateProblems("quittance", "{{#with call}}{{rent_amount}}{{/with}}")).toEqual([]);
  });

  it("no partials, decorators, unknown helpers or object machinery", () => {
    expect(templateProblems("recu", "{{> header}}")[0]).toMatch(/Partials/);
    expect(templateProblems("recu", "{{#> layout}}x{{/layout}}")[0]).toMatch(/Partials/);
    expect(templateProblems("recu", "{{* decorator}}")[0]).toMatch(/Decorators/);
    expect(templateProblems("recu", "{{lookup call 'constructor'}}")[0]).toMatch(/Unknown helper 'lookup'/);
    expect(templateProblems("recu", "{{log call}}")[0]).toMatch(/Unknown helper 'log'/);
    for (const name of ["constructor", "__proto__", "hasOwnProperty", "prototype", "__defineGetter__"])
      expect(templateProblems("recu", `{{call.${name}}}`)[0], name).toMatch(
        `'${name}' is not a template variable`,
      );
    for (const helper of ["if", "unless", "each", "with"])
      expect(templateProblems("recu", `{{#${helper} lessees}}x{{/${helper}}}`), helper).toEqual([]);
    expect(
      templateProblems("recu", "{{date call.due_date}} {{number call.rent_amount}} {{join lessees ', '}}"),
    ).toEqual([]);
    expect(
      templateProblems("recu", "{{#if (or (eq call.paid_amount 0) call.remaining_amount)}}x{{/if}}"),
    ).toEqual([]);
  });

  it("blocks nest at most 20 deep, each loops at most 3 (a loop in a loop multiplies every render)", () => {
    const nested = (open: string, close: string, n: number) => `${open.repeat(n)}x${close.repeat(n)}`;
    expect(templateProblems("recu", nested("{{#if call}}", "{{/if}}", MAX_BLOCK_DEPTH))).toEqual([]);
    expect(templateProblems("recu", nested("{{#if call}}", "{{/if}}", MAX_BLOCK_DEPTH + 1))[0]).toMatch(
      /Blocks nest deeper than 20/,
    );
    expect(templateProblems("recu", nested("{{#if call}}", "{{/if}}", 150))).toEqual([
      "Blocks nest deeper than 20",
    ]);
    expect(templateProblems("recu", nested("{{#each @root.lessees}}", "{{/each}}", MAX_EACH_DEPTH))).toEqual(
      [],
    );
    expect(
      templateProblems("recu", nested("{{#each @root.lessees}}", "{{/each}}", MAX_EACH_DEPTH + 1))[0],
    ).toMatch(/'each' loops nest deeper than 3/);
  });

  it("at most 400 tags, sub-expressions 10 deep (checked before parsing: compiling costs per tag)", () => {
    expect(templateProblems("recu", "{{call.due_date}} ".repeat(MAX_TEMPLATE_TAGS))).toEqual([]);
    expect(templateProblems("recu", "{{call.due_date}} ".repeat(MAX_TEMPLATE_TAGS + 1))).toEqual([
      "At most 400 {{…}} tags (found 401)",
    ]);
    const sub = (n: number) => `{{#if ${"(eq ".repeat(n)}1 1${")".repeat(n)}}}x{{/if}}`;
    expect(templateProblems("recu", sub(MAX_SUBEXPRESSION_DEPTH))).toEqual([]);
    expect(templateProblems("recu", sub(MAX_SUBEXPRESSION_DEPTH + 1))).toEqual([
      "Sub-expressions nest deeper than 10",
    ]);
    // An else is no block of its own.
    expect(templateProblems("recu", `${"{{#if call}}a{{^}}b".repeat(20)}${"{{/if}}".repeat(20)}`)).toEqual(
      [],
    );
  });

  it("a source is at most 64 KiB and never empty", () => {
    expect(templateSourceSchema.safeParse("x".repeat(MAX_TEMPLATE_CHARS)).success).toBe(true);
    expect(templateSourceSchema.safeParse("x".repeat(MAX_TEMPLATE_CHARS + 1)).success).toBe(false);
    expect(templateSourceSchema.safeParse("").success).toBe(false);
    expect(templateSourceSchema.safeParse("a\u0000b").success).toBe(false);
  });
});

describe("missingVariables (for areas that render templates)", () => {
  it("names what a view lacks of its code's sample, arrays by their first item", () => {
    expect(missingVariables("quittance", TEMPLATE_SAMPLES.quittance)).toEqual([]);
    const { receipt: _, ...noReceipt } = TEMPLATE_SAMPLES.quittance;
    expect(missingVariables("quittance", noReceipt)).toEqual(["receipt"]);
    const lessees = [{ first_name: "A", last_name: "B" }];
    expect(missingVariables("recu", { ...TEMPLATE_SAMPLES.recu, lessees })).toEqual(["lessees[].email"]);
    expect(missingVariables("recu", { ...TEMPLATE_SAMPLES.recu, call: null })).toEqual(["call"]);
    expect(missingVariables("recu", { ...TEMPLATE_SAMPLES.recu, lessees: {} })).toEqual(["lessees"]);
  });
});

describe("configuration schema (boundaries)", () => {
  const levels = (...list: [number, string][]) => ({
    ...configuration,
    reminder_levels: list.map(([days_after_due, kind], i) => ({ level: i + 1, days_after_due, kind })),
  });
  const ok = (value: unknown) => configurationSchema.safeParse(value).success;
  it("days after the due date: 1 to 365, each level a day after the one before", () => {
    expect(ok(levels([1, "REMINDER"]))).toBe(true);
    expect(ok(levels([0, "REMINDER"]))).toBe(false);
    expect(ok(levels([365, "REMINDER"]))).toBe(true);
    expect(ok(levels([366, "REMINDER"]))).toBe(false);
    expect(ok(levels([5, "REMINDER"], [6, "REMINDER"]))).toBe(true);
    expect(ok(levels([5, "REMINDER"], [5, "SECOND_REMINDER"]))).toBe(false);
    expect(ok(levels([5.5, "REMINDER"]))).toBe(false);
  });
  it("kinds never milder than before; 0 to 6 levels", () => {
    expect(ok(levels([5, "SECOND_REMINDER"], [10, "REMINDER"]))).toBe(false);
    expect(ok(levels([5, "FORMAL_NOTICE"], [10, "FORMAL_NOTICE"]))).toBe(true);
    expect(ok(levels())).toBe(true);
    const six = Array.from({ length: 6 }, (_, i) => [i + 1, "REMINDER"] as [number, string]);
    expect(ok(levels(...six))).toBe(true);
    expect(ok(levels(...six, [7, "REMINDER"]))).toBe(false);
  });
  it("receipt prefix: 1 to 12 safe characters", () => {
    const prefix = (p: string) => ok({ ...configuration, receipt_numbering: { prefix: p, reset: "YEARLY" } });
    expect(prefix("Q")).toBe(true);
    expect(prefix("QUIT-2026/A.")).toBe(true);
    expect(prefix("QUIT-2026/AB")).toBe(true);
    expect(prefix("QUIT-2026/ABC")).toBe(false);
    expect(prefix("")).toBe(false);
    for (const bad of ["-Q", "Q Q", "Q<", "Q{{", "Qé", "../x"]) expect(prefix(bad), bad).toBe(false);
  });
});
