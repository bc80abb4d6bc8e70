import type { DomainEvent } from "../../platform/decider.ts";
import { allEventTypes } from "../../platform/decider.ts";
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

export const bookEventTypes = allEventTypes<BookEvent["type"]>()(["BookPeriodClosed"]);

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

export const mandateEventTypes = allEventTypes<MandateEvent["type"]>()([
  "ManagementMandateSigned",
  "ManagementMandateEnded",
]);

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

/**
 * An owner's expenses (docs/accounting.md, "Owner expenses"): what the owner, or the agency for
 * the owner, paid for the let property, each kind posted to its account of the plan comptable and
 * summed in its line of the form 2044. Stream `owner_expenses-<owner uuid>`. An expense is never
 * edited: a cancellation posts its reversal, dated the day it is cancelled.
 */
export const ownerExpensesStream = (ownerId: string) => `owner_expenses-${ownerId.toLowerCase()}`;

export const EXPENSE_KINDS = [
  "MANAGEMENT_FEES",
  "ADMINISTRATION_FEES",
  "INSURANCE",
  "WORKS",
  "UNRECOVERED_CHARGES",
  "PROPERTY_TAX",
  "COOWNERSHIP_PROVISIONS",
  "COOWNERSHIP_REGULARISATION",
  "LOAN_INTEREST",
] as const;
export type ExpenseKind = (typeof EXPENSE_KINDS)[number];

export interface OwnerExpense {
  expense_id: string;
  owner_id: string;
  kind: ExpenseKind;
  amount: number;
  paid_on: string;
  label: string;
  lease_id: string | null;
  estate_id: string | null;
}

export type OwnerExpenseEvent =
  | DomainEvent<"OwnerExpenseRecorded", OwnerExpense>
  | DomainEvent<"OwnerExpenseCancelled", { expense_id: string; owner_id: string; cancelled_on: string }>;

export const ownerExpenseEventTypes = allEventTypes<OwnerExpenseEvent["type"]>()([
  "OwnerExpenseRecorded",
  "OwnerExpenseCancelled",
]);

/** An owner's expenses folded: each one and whether it was cancelled. */
export type OwnerExpensesState = Record<string, OwnerExpense & { cancelled_on: string | null }>;

export const evolveOwnerExpenses = (
  state: OwnerExpensesState,
  event: OwnerExpenseEvent,
): OwnerExpensesState => {
  switch (event.type) {
    case "OwnerExpenseRecorded":
      return { ...state, [event.data.expense_id]: { ...event.data, cancelled_on: null } };
    case "OwnerExpenseCancelled": {
      const known = state[event.data.expense_id];
      return known
        ? { ...state, [event.data.expense_id]: { ...known, cancelled_on: event.data.cancelled_on } }
        : state;
    }
  }
};

/**
 * Payouts to the owners (mandants) from an agency's bank account, as SEPA credit transfers
 * (pain.001.001.09). Stream `payouts-<bank account uuid>`: the decider sees every payout of the
 * account, so a payout asked while the previous one is not yet in the books is refused.
 */
export const payoutsStream = (bankAccountId: string) => `payouts-${bankAccountId.toLowerCase()}`;

export interface PayoutTransfer {
  owner_id: string;
  amount: number;
  /** The transfer's end-to-end id (pain.001 EndToEndId). The owner's name and IBAN are personal
   * data: kept on the owner (encrypted, erasable), read when the file is made, not copied here. */
  end_to_end_id: string;
}

export interface PayoutIssuedData {
  payout_id: string;
  bank_account_id: string;
  on: string;
  /** When the file was made (the pain.001 CreDtTm). */
  created_at: string;
  transfers: PayoutTransfer[];
}

export type PayoutEvent = DomainEvent<"PayoutIssued", PayoutIssuedData>;

export const payoutEventTypes = allEventTypes<PayoutEvent["type"]>()(["PayoutIssued"]);

export interface PayoutsState {
  payouts: string[];
}

export const evolvePayouts = (state: PayoutsState, event: PayoutEvent): PayoutsState => {
  switch (event.type) {
    case "PayoutIssued":
      return { payouts: [...state.payouts, event.data.payout_id] };
  }
};
