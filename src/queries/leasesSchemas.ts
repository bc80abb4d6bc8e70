import { z } from "zod";
import {
  CHARGE_SETTLEMENT_MODES,
  LEASE_TYPES,
  PAYMENT_METHODS,
  PAYMENT_TERMS,
  RENT_CHANGE_REASONS,
  RENT_FREQUENCIES,
  REVISION_INDEX_TYPES,
  USAGE_TYPES,
} from "../events/leases.ts";
import {
  date,
  decimalsMeta,
  euros,
  hasAtMostDecimals,
  storableJson,
  text,
  uuid,
} from "../platform/http/schemas.ts";

/** Request bodies of the leases area that its answers also show (docs/design.md §6 Leases). */

/** The platform's bounded dates and whole-cent euros (docs/security.md, "Bounds of every field"). */
export { date };
export const money = () => euros();

export const quarter = () => z.string().regex(/^\d{4}-Q[1-4]$/, "Must be a quarter like 2025-Q2");
/** An index value (IRL, ILC, ILAT): published with at most four decimals, so never 0 in points. */
const indexValue = () =>
  z
    .number()
    .gt(0, "Must be greater than 0")
    .max(1e6)
    .refine((v) => hasAtMostDecimals(v, 4), "At most 4 decimals")
    .meta(decimalsMeta(4));
export const readOnly = (field: string, hint: string) =>
  z.never({ error: `${field} is read-only; ${hint}` }).optional();

/** Maintained by the service: sending them is a 400. */
export const readOnlyFields = {
  status: readOnly("status", "change it with PUT /api/leases/{id}/status"),
  rent_regulation_compliance_status: readOnly("rent_regulation_compliance_status", "see compliance"),
  signed_at: readOnly("signed_at", "set by the status change"),
  notice_date: readOnly("notice_date", "set by the status change"),
  notice_end_date: readOnly("notice_end_date", "set by the status change"),
  terminated_at: readOnly("terminated_at", "set by the status change"),
  revision: readOnly("revision", "it is the ETag"),
};

export const optionalTerms = {
  usage_type: z.enum(USAGE_TYPES).nullish(),
  end_date: date().nullish(),
  duration_months: z.number().int("Must be an integer").min(1).max(1200).nullish(),
  charges_amount: money().nullish(),
  charge_settlement_mode: z.enum(CHARGE_SETTLEMENT_MODES).nullish(),
  deposit_amount: money().nullish(),
  rent_frequency: z.enum(RENT_FREQUENCIES).nullish(),
  payment_terms: z.enum(PAYMENT_TERMS).nullish(),
  payment_method: z.enum(PAYMENT_METHODS).nullish(),
  payment_day: z.number().int("Must be an integer").min(1).max(28).nullish(),
  revision_index_type: z.enum(REVISION_INDEX_TYPES).nullish(),
  revision_reference_quarter: quarter().nullish(),
  revision_reference_value: indexValue().nullish(),
  special_conditions: text(10_000).nullish(),
  custom_fields: storableJson(z.record(z.string(), z.unknown())).nullish(),
  mobility_motive: text(500)
    .nullish()
    .describe(
      "MOBILITY (required, loi n° 89-462 art. 25-13): the motive of mobility the lessee justifies on the start date (formation professionnelle, études supérieures, apprentissage, stage, service civique, mutation or mission temporaire)",
    ),
  rent_complement: money()
    .nullish()
    .describe(
      "Under rent control, a complément de loyer per month on top of a base rent within the increased reference rent (loi n° 2018-1021 ELAN art. 140 III B); none for a dwelling classed F or G (loi n° 2021-1104 art. 159)",
    ),
  takeover_date: date()
    .nullish()
    .describe(
      "A tenancy that began before the landlord used the service: the day the service takes it over, on or after start_date. Rent calls start with the period holding it (in full); no call, reminder or message for an earlier period",
    ),
  opening_balance: money()
    .nullish()
    .describe(
      "With takeover_date: what the tenant owed on that day (unpaid rent and charges before the takeover). Recorded on the account before the first call and paid first",
    ),
  rent_complement_justification: text(2000)
    .nullish()
    .describe(
      "The determining localisation or comfort features, compared with dwellings of the same category in the same area, that justify the complément de loyer (ELAN art. 140 III B)",
    ),
};

export const createLeaseSchema = z.strictObject({
  estate_id: uuid(),
  primary_lessee_id: uuid(),
  lease_type: z.enum(LEASE_TYPES),
  start_date: date(),
  rent_amount: money(),
  ...optionalTerms,
  ...readOnlyFields,
});

export const rentSchema = z.strictObject({
  rent_amount: money(),
  charges_amount: money().nullish(),
  effective_date: date(),
  reason: z.enum(RENT_CHANGE_REASONS),
  index: z
    .strictObject({
      type: z.enum(REVISION_INDEX_TYPES),
      reference_quarter: quarter(),
      reference_value: indexValue(),
      new_quarter: quarter(),
      new_value: indexValue(),
    })
    .optional(),
  works: z
    .strictObject({ agreed_by_clause: z.boolean(), works_completed: z.boolean() })
    .optional()
    .describe(
      "WORKS_INCREASE (loi n° 89-462 art. 17-1 II): an express clause of the contract or an amendment agreed on the works and the increase, and the works are completed",
    ),
  reevaluation: z
    .strictObject({
      proposed_on: date(),
      neighbourhood_rent: money(),
      renewal_months: z.number().int().min(1).max(1200).optional(),
    })
    .optional()
    .describe(
      "REEVALUATION (art. 17-2), effective on a renewal's first day: the day the new rent was proposed (at least 6 months before the term) and the neighbourhood's representative rent the references give; renewal_months: the renewed contract's length (default: the law's)",
    ),
  requested_on: date()
    .optional()
    .describe(
      "INDEX_REVISION: the day the lessor asked for it (loi n° 89-462 art. 17-1 I: it takes effect from the request, and a request more than a year after the anniversary forfeits that year); absent: the effective date",
    ),
});

export type CreateLeaseInput = z.output<typeof createLeaseSchema>;
export type RentInput = z.output<typeof rentSchema>;

export const amendmentChanges = z
  .strictObject({
    rent_amount: money().optional(),
    charges_amount: money().nullish(),
    end_date: date().nullish(),
    duration_months: z.number().int("Must be an integer").min(1).max(1200).nullish(),
    special_conditions: text(10_000).nullish(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), "Must change at least one term");

export const documentFields = {
  document_type: text(100),
  description: text(2000).nullish(),
};
