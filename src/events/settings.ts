import { z } from "zod";
import { allEventTypes } from "../platform/decider.ts";
import { isStorable, text } from "../platform/http/schemas.ts";
import { emailField } from "../platform/resource/fields.ts";

/**
 * Settings of a tenant (docs/design.md §7.1, docs/settings.md): its configuration (reminder levels,
 * receipt numbering, sender identity) and its letter and receipt templates. Each is a document
 * saved whole; until the tenant saves one, the built-in default applies.
 *
 * Streams: `configuration-<tenant uuid>` (ConfigurationSaved), `template-<tenant uuid>-<code>`
 * (TemplateSaved, TemplateReset). The stream revision is the ETag; a template's version is the
 * number of its events.
 */

// ---------------------------------------------------------------------------------------------
// Configuration

export const REMINDER_KINDS = ["REMINDER", "SECOND_REMINDER", "FORMAL_NOTICE"] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];
export const RECEIPT_NUMBER_RESETS = ["YEARLY"] as const;

/** Past this many days a reminder is no reminder: the arrears go to a commandement de payer. */
export const MAX_REMINDER_DAY = 365;
export const MAX_REMINDER_LEVELS = 6;

const FEE_MESSAGE =
  "A reminder may carry no fee or penalty (loi 89-462 art. 4 i and p): the configuration has no such field";
/** Keys a client might send to charge for a reminder: named in the 400, with the law's reason. */
const FEE_KEYS = /fee|penalt|charge|cost|amount|frais|penalite|pénalité/i;

export const strictWithFeeMessage = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys" && issue.keys.some((k) => FEE_KEYS.test(k))
        ? FEE_MESSAGE
        : undefined,
  });

export const reminderLevelSchema = strictWithFeeMessage({
  level: z.int("Must be an integer").min(1, "Must be >= 1").max(MAX_REMINDER_LEVELS),
  days_after_due: z
    .int("Must be a whole number of days")
    .min(1, "Must be at least 1 day after the due date")
    .max(MAX_REMINDER_DAY, `Must be at most ${MAX_REMINDER_DAY} days`),
  kind: z.enum(REMINDER_KINDS, { error: `Must be one of ${REMINDER_KINDS.join(", ")}` }),
}).meta({ id: "ReminderLevel" });
export type ReminderLevel = z.output<typeof reminderLevelSchema>;

const severity = (kind: ReminderKind) => REMINDER_KINDS.indexOf(kind);

/**
 * Levels numbered 1..n in order, each later than the one before (so two reminders of a call are
 * at least a day apart, docs/design.md §7.1 asks 24 h) and never milder (a formal notice is not
 * followed by a first reminder). No levels at all: the tenant sends no reminder.
 */
export const reminderLevelsSchema = z
  .array(reminderLevelSchema)
  .max(MAX_REMINDER_LEVELS, `At most ${MAX_REMINDER_LEVELS} levels`)
  .superRefine((levels, ctx) => {
    levels.forEach((l, i) => {
      if (l.level !== i + 1)
        ctx.addIssue({
          code: "custom",
          path: [i, "level"],
          message: `Must be ${i + 1}: levels are 1, 2, 3… in order`,
        });
      const before = levels[i - 1];
      if (!before) return;
      if (l.days_after_due <= before.days_after_due)
        ctx.addIssue({
          code: "custom",
          path: [i, "days_after_due"],
          message: `Must be after the previous level's ${before.days_after_due} days`,
        });
      if (severity(l.kind) < severity(before.kind))
        ctx.addIssue({
          code: "custom",
          path: [i, "kind"],
          message: `Must not be milder than the previous level's ${before.kind}`,
        });
    });
  });

/** Letters, digits and `-`, `_`, `/`, `.`: printed on every receipt number, in file names too. */
export const RECEIPT_PREFIX = /^[A-Za-z0-9][A-Za-z0-9_./-]{0,11}$/;

export const receiptNumberingSchema = z
  .strictObject({
    prefix: z
      .string()
      .regex(
        RECEIPT_PREFIX,
        "Must be 1 to 12 letters, digits, '-', '_', '/' or '.', starting with a letter or digit",
      ),
    reset: z.enum(RECEIPT_NUMBER_RESETS, {
      error: "Must be YEARLY: receipts are numbered per tenant and year",
    }),
  })
  .meta({ id: "ReceiptNumbering" });

export const senderSchema = z
  .strictObject({
    name: text(255),
    email: emailField,
    address: text(500).nullish(),
  })
  .meta({ id: "SenderIdentity" });

/** Which rent messages go out by themselves (docs/messages.md, "Rent messages"); absent: all, 10 days ahead. */
export const rentMessagesSchema = z
  .strictObject({
    avis: z.boolean().describe("Email each rent call's avis d'échéance to the lease's tenants"),
    avis_days_before: z
      .int("Must be a whole number of days")
      .min(0)
      .max(60)
      .describe("Days before the due date"),
    quittance: z.boolean().describe("Email the quittance when a call is paid in full"),
  })
  .meta({ id: "RentMessages" });
export type RentMessages = z.output<typeof rentMessagesSchema>;
export const DEFAULT_RENT_MESSAGES: RentMessages = { avis: true, avis_days_before: 10, quittance: true };

/** The configuration as saved (the event's data); the API's bodies add read-only fields to it. */
export const configurationShape = {
  reminder_levels: reminderLevelsSchema,
  receipt_numbering: receiptNumberingSchema,
  sender: senderSchema,
  rent_messages: rentMessagesSchema.optional(),
  alert_emails: z
    .array(emailField)
    .min(1, "Name at least one address, or leave the field out")
    .max(10, "At most 10 addresses")
    .optional()
    .describe("Where alerts go (a meter's consumption anomaly); absent: the sender's address"),
};
export const configurationSchema = strictWithFeeMessage(configurationShape);
export type Configuration = z.output<typeof configurationSchema>;

export const DEFAULT_REMINDER_LEVELS: ReminderLevel[] = [
  { level: 1, days_after_due: 5, kind: "REMINDER" },
  { level: 2, days_after_due: 15, kind: "SECOND_REMINDER" },
  { level: 3, days_after_due: 30, kind: "FORMAL_NOTICE" },
];
/**
 * Until the tenant names its own, messages go out under its name from this address: `.invalid` is
 * reserved (RFC 2606), so it is nobody's, and a relay refusing it tells the landlord to set one.
 */
export const DEFAULT_SENDER_EMAIL = "no-reply@pms.invalid";

/** The configuration of a tenant that saved none (its name as the sender's). */
export const defaultConfiguration = (tenantName: string): Configuration => ({
  reminder_levels: DEFAULT_REMINDER_LEVELS.map((l) => ({ ...l })),
  receipt_numbering: { prefix: "Q", reset: "YEARLY" },
  sender: { name: tenantName, email: DEFAULT_SENDER_EMAIL, address: null },
});

export const configurationStream = (tenantId: string) => `configuration-${tenantId}`;

export type ConfigurationEvent = { type: "ConfigurationSaved"; data: Configuration };
export const configurationEventTypes = allEventTypes<ConfigurationEvent["type"]>()(["ConfigurationSaved"]);

// ---------------------------------------------------------------------------------------------
// Templates

export const TEMPLATE_CODES = [
  "quittance",
  "recu",
  "reminder",
  "second-reminder",
  "formal-notice",
  "arrears-statement",
  "amendment-notice",
] as const;
export type TemplateCode = (typeof TEMPLATE_CODES)[number];
export const isTemplateCode = (code: string): code is TemplateCode =>
  (TEMPLATE_CODES as readonly string[]).includes(code);

/** The template a reminder level's letter uses. */
export const TEMPLATE_OF_REMINDER: Record<ReminderKind, TemplateCode> = {
  REMINDER: "reminder",
  SECOND_REMINDER: "second-reminder",
  FORMAL_NOTICE: "formal-notice",
};

/** A template's source: 64 KiB is ten pages of letter. */
export const MAX_TEMPLATE_CHARS = 65_536;
export const templateSourceSchema = z
  .string()
  .min(1, "Must not be empty")
  .max(MAX_TEMPLATE_CHARS, `Must be at most ${MAX_TEMPLATE_CHARS} characters`)
  .refine(isStorable, "Must not contain NUL or unpaired surrogate characters");

export const templateStream = (tenantId: string, code: TemplateCode) => `template-${tenantId}-${code}`;

export type TemplateEvent =
  | { type: "TemplateSaved"; data: { code: TemplateCode; source: string } }
  | { type: "TemplateReset"; data: { code: TemplateCode } };
export const templateEventTypes = allEventTypes<TemplateEvent["type"]>()(["TemplateSaved", "TemplateReset"]);

export type SettingsEvent = ConfigurationEvent | TemplateEvent;

/**
 * The variables templates may use (the contract with receipts, reminders, arrears and
 * amendments; docs/settings.md): every template sees the parties and the sender, each code its
 * own part. A template is tried against this sample before it is saved (strict: an unknown
 * variable is refused), so what renders here renders for real.
 */
const common = {
  landlord: { name: "SCI Les Tilleuls", address: "12 rue des Lilas, 75011 Paris" },
  lessees: [{ first_name: "Camille", last_name: "Martin", email: "camille.martin@example.org" }],
  estate: { address: "3 avenue Foch, appartement 12, 69006 Lyon" },
  lease: { id: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001", reference: "BAIL-2026-001" },
  sender: { name: "SCI Les Tilleuls", email: "gestion@example.org" },
};
const call = {
  period_start: "2026-03-01",
  period_end: "2026-03-31",
  due_date: "2026-03-05",
  rent_amount: 850,
  charges_amount: 120.5,
  total_amount: 970.5,
  paid_amount: 500,
  remaining_amount: 470.5,
};
const reminder = (level: number, kind: ReminderKind, days_late: number) => ({
  call,
  reminder: { level, kind, days_late },
});

export const TEMPLATE_SAMPLES: Record<TemplateCode, Record<string, unknown>> = {
  quittance: {
    ...common,
    call: { ...call, paid_amount: 970.5, remaining_amount: 0 },
    receipt: { number: "Q-2026-000042", issued_on: "2026-03-06" },
  },
  recu: { ...common, call, receipt: { number: "Q-2026-000043", issued_on: "2026-03-06" } },
  reminder: { ...common, ...reminder(1, "REMINDER", 5) },
  "second-reminder": { ...common, ...reminder(2, "SECOND_REMINDER", 15) },
  "formal-notice": { ...common, ...reminder(3, "FORMAL_NOTICE", 30) },
  "arrears-statement": {
    ...common,
    arrears: {
      total: 1441,
      periods: [
        { ...call, remaining_amount: 470.5 },
        {
          ...call,
          period_start: "2026-04-01",
          period_end: "2026-04-30",
          due_date: "2026-04-05",
          paid_amount: 0,
          remaining_amount: 970.5,
        },
      ],
    },
  },
  "amendment-notice": {
    ...common,
    amendment: { title: "Révision du loyer", status: "VALIDATED", effective_date: "2026-04-01" },
  },
};
