import type { DeductionKind } from "../law/depositReturn.ts";
import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * The return of a lease's deposit (loi n° 89-462 art. 22, docs/moving.md "Deposit"): stream
 * `lease_deposit-<lease uuid>`, one `LeaseDepositReturned` at most. The amount, the keys' return
 * and the due day are the lease's (its LeaseTerminated); this stream holds only what the lessor did.
 */
export const depositStream = (leaseId: string) => `lease_deposit-${leaseId}`;

export interface Deduction {
  kind: DeductionKind;
  amount: number;
  description: string;
  rent_call_id: string | null;
  invoice_media_id: string | null;
}

export interface DepositReturn {
  lease_id: string;
  returned_on: string;
  deductions: Deduction[];
  /** Held until the building's annual accounts (art. 22 al. 5), at most 20 %. */
  held: number;
  returned_amount: number;
  /** The keys' return the due day counts from: the termination's, or given with the return. */
  keys_returned_on: string;
  due_on: string;
  late_months: number;
  late_penalty: number;
}

/** The held part settled once the building's accounts are approved (art. 22 al. 5). */
export interface DepositBalance {
  lease_id: string;
  settled_on: string;
  accounts_approved_on: string;
  /** The tenant's share of the building's charges still owed, taken from the held part. */
  charges_deducted: number;
  balance_returned: number;
  /** A month after the accounts' approval. */
  due_on: string;
  late_months: number;
  late_penalty: number;
}

export type DepositEvent =
  | DomainEvent<"LeaseDepositReturned", DepositReturn>
  | DomainEvent<"LeaseDepositBalanceSettled", DepositBalance>;
export const depositEventTypes = allEventTypes<DepositEvent["type"]>()([
  "LeaseDepositReturned",
  "LeaseDepositBalanceSettled",
]);

/** The deposit's stream folded: its return, then the held part's balance. */
export type DepositState = (DepositReturn & { balance: DepositBalance | null }) | null;

export const evolveDeposit = (state: DepositState, event: DepositEvent): DepositState => {
  switch (event.type) {
    case "LeaseDepositReturned":
      return { ...event.data, balance: null };
    case "LeaseDepositBalanceSettled":
      return state && { ...state, balance: event.data };
  }
};
