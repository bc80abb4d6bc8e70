import type { DomainEvent } from "../../platform/decider.ts";
import { deterministicUuid } from "../../platform/ids.ts";

/**
 * The books (docs/accounting.md): a double-entry ledger per lessor, derived from the money events
 * by the `books` projection. The only events of the area itself are the closings of a book's
 * fiscal years, on stream `book-<book uuid>`: a closed year takes no new entry (later postings are
 * dated in the first open year).
 */

export const bookStream = (bookId: string) => `book-${bookId.toLowerCase()}`;

/**
 * One book per owner of the estates let, and one for the company itself (estates without an owner):
 * the id is derived, so the projection and the routes name the same book without a lookup.
 */
export const bookIdOf = (tenantId: string, ownerId: string | null): string =>
  ownerId
    ? deterministicUuid("book", "owner", ownerId.toLowerCase())
    : deterministicUuid("book", "company", tenantId.toLowerCase());

export interface BookPeriodClosedData {
  book_id: string;
  year: number;
  closed_on: string;
}

export type BookEvent = DomainEvent<"BookPeriodClosed", BookPeriodClosedData>;

export const bookEventTypes = ["BookPeriodClosed"] as const satisfies readonly BookEvent["type"][];

/** A book's stream folded: the last fiscal year closed. */
export interface BookState {
  closed_through: number | null;
}

export const initialBookState = (): BookState => ({ closed_through: null });

export const evolveBook = (_state: BookState, event: BookEvent): BookState => {
  switch (event.type) {
    case "BookPeriodClosed":
      return { closed_through: event.data.year };
  }
};

/**
 * The management mandate (mandat de gestion, loi n° 70-9 "Hoguet") an owner gave the company: the
 * fee the agency keeps on what it collects, VAT on top. Stream `management_mandate-<owner uuid>`:
 * one mandate in force at a time; a new one follows the end of the previous.
 */
export const mandateStream = (ownerId: string) => `management_mandate-${ownerId.toLowerCase()}`;

export interface ManagementMandate {
  mandate_id: string;
  owner_id: string;
  fee_rate: number;
  vat_rate: number;
  starts_on: string;
  ends_on: string | null;
}

export type MandateEvent =
  | DomainEvent<"ManagementMandateSigned", Omit<ManagementMandate, "ends_on">>
  | DomainEvent<"ManagementMandateEnded", { mandate_id: string; owner_id: string; ends_on: string }>;

export const mandateEventTypes = [
  "ManagementMandateSigned",
  "ManagementMandateEnded",
] as const satisfies readonly MandateEvent["type"][];

export const evolveMandates = (state: ManagementMandate[], event: MandateEvent): ManagementMandate[] => {
  switch (event.type) {
    case "ManagementMandateSigned":
      return [...state, { ...event.data, ends_on: null }];
    case "ManagementMandateEnded":
      return state.map((m) =>
        m.mandate_id === event.data.mandate_id ? { ...m, ends_on: event.data.ends_on } : m,
      );
  }
};

/** The mandate in force on a day, if any. */
export const mandateOn = (mandates: readonly ManagementMandate[], day: string): ManagementMandate | null =>
  mandates.find((m) => m.starts_on <= day && (m.ends_on === null || day <= m.ends_on)) ?? null;
