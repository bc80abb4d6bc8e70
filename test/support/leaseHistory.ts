import type { LeaseEvent, LeaseTerms } from "../../src/events/leases.ts";

/**
 * A lease as its decider tests give it (no database): the terms of an unfurnished lease under
 * loi n° 89-462 (3 years, monthly, IRL, 800 + 50 a month from 2025-01-01) and its first events.
 * A test file overrides the figures its rules read, so they stay written where they are checked.
 */
export const sampleTerms = (estate_id: string, extra: Partial<LeaseTerms> = {}): LeaseTerms => ({
  estate_id,
  lease_type: "UNFURNISHED",
  usage_type: null,
  start_date: "2025-01-01",
  end_date: null,
  duration_months: 36,
  rent_amount: 800,
  charges_amount: 50,
  charge_settlement_mode: null,
  deposit_amount: 800,
  rent_frequency: "MONTHLY",
  payment_terms: null,
  payment_method: null,
  payment_day: 5,
  revision_index_type: "IRL",
  revision_reference_quarter: "2024-Q2",
  revision_reference_value: 145.17,
  special_conditions: null,
  custom_fields: null,
  mobility_motive: null,
  rent_complement: null,
  rent_complement_justification: null,
  takeover_date: null,
  opening_balance: null,
  ...extra,
});

/** Created, its primary tenant added from the start date, then (`active`) activated on that day. */
export function leaseHistory(
  lease_id: string,
  terms: LeaseTerms,
  primary: { lessee_id: string; association_id: string },
) {
  const created: LeaseEvent = { type: "LeaseCreated", data: { lease_id, ...terms } };
  const primaryAdded: LeaseEvent = {
    type: "LeaseLesseeAdded",
    data: { lease_id, ...primary, role: "Primary", start_date: terms.start_date, end_date: null },
  };
  const activated: LeaseEvent = {
    type: "LeaseActivated",
    data: { lease_id, effective_date: terms.start_date, reason: null },
  };
  return {
    created,
    primaryAdded,
    activated,
    draft: [created, primaryAdded],
    active: [created, primaryAdded, activated],
  };
}
