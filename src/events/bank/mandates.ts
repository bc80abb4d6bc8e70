import { addMonths } from "../../law/calendar.ts";
import { allEventTypes } from "../../platform/decider.ts";

/**
 * SEPA Direct Debit mandates (docs/bank.md, "SEPA mandates"): stream `sepa_mandate-<id>`, one per
 * lease and payer. The mandate reference (RUM) is derived from the mandate's id, so it is unique
 * without a reservation. A mandate unused for 36 months lapses (EPC SDD Core rulebook, 4.3.4):
 * derived on the day, never stored.
 */
export const sepaMandateStream = (id: string) => `sepa_mandate-${id.toLowerCase()}`;

/** "PMS-" and 31 of the id's hex digits, upper case: 35 characters, the most a RUM may have. */
export const rumOf = (mandateId: string) => `PMS-${mandateId.replace(/-/g, "").toUpperCase().slice(0, 31)}`;

export interface MandateSignedData {
  mandate_id: string;
  lease_id: string;
  lessee_id: string;
  rum: string;
  iban: string;
  bic: string | null;
  signed_on: string;
}

export type MandateEvent =
  | { type: "SepaMandateSigned"; data: MandateSignedData }
  | { type: "SepaMandateRevoked"; data: { mandate_id: string; lease_id: string; revoked_on: string } }
  /** A collection used it (its next collection is RCUR; the 36 months of lapse count from here). */
  | {
      type: "SepaMandateUsed";
      data: { mandate_id: string; lease_id: string; collection_id: string; used_on: string };
    };

export const mandateEventTypes = allEventTypes<MandateEvent["type"]>()([
  "SepaMandateSigned",
  "SepaMandateRevoked",
  "SepaMandateUsed",
]);

export type Mandate =
  | { status: "absent" }
  | (MandateSignedData & {
      status: "signed";
      /** The last collection's date: none yet, so the next one is FRST. */
      last_used_on: string | null;
      revoked_on: string | null;
    });

export function evolveMandate(state: Mandate, event: MandateEvent): Mandate {
  switch (event.type) {
    case "SepaMandateSigned":
      return { status: "signed", ...event.data, last_used_on: null, revoked_on: null };
    case "SepaMandateRevoked":
      return state.status === "signed" ? { ...state, revoked_on: event.data.revoked_on } : state;
    case "SepaMandateUsed":
      return state.status === "signed" && (state.last_used_on ?? "") < event.data.used_on
        ? { ...state, last_used_on: event.data.used_on }
        : state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** ACTIVE, REVOKED, or LAPSED once 36 months passed since its last use (or signature if unused). */
export function mandateStatusOn(
  m: { signed_on: string; last_used_on: string | null; revoked_on: string | null },
  today: string,
): "ACTIVE" | "REVOKED" | "LAPSED" {
  if (m.revoked_on) return "REVOKED";
  return addMonths(m.last_used_on ?? m.signed_on, 36) <= today ? "LAPSED" : "ACTIVE";
}
