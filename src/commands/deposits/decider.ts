import type { Deduction, DepositEvent, DepositState } from "../../events/deposits.ts";
import { evolveDeposit } from "../../events/deposits.ts";
import {
  depositBalanceVerdict,
  depositDueOn,
  depositReturnVerdict,
  latePenalty,
} from "../../law/depositReturn.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, enforce, fieldError, unprocessable } from "../../platform/errors.ts";

/** Returning a deposit (loi n° 89-462 art. 22): the route looked up the lease's and the deductions' facts. */
export interface ReturnDeposit {
  type: "ReturnDeposit";
  lease_id: string;
  returned_on: string;
  deductions: (Deduction & { call_remaining?: number | null; invoice_found?: boolean })[];
  held: number;
  /** Whether the tenant gave a forwarding address at the keys' return (art. 22 al. 3, 7); null: not stated. */
  forwarding_address_given: boolean | null;
  /** Whether the building is in copropriété (the held part waits for its accounts, al. 5); null: unknown. */
  in_copropriete: boolean | null;
  /**
   * The keys' return for a lease ended without one (through PUT .../status or at its term): from
   * the body, else the lease's last RETURNED handover; null: none.
   */
  keys_returned_on: string | null;
  /** The lease's deposit as its events left it (lease_deposits). */
  lease: {
    amount: number;
    monthly_rent: number;
    ended: boolean;
    keys_returned_on: string | null;
    due_on: string | null;
  };
}

/** Settling the held part once the building's accounts are approved (art. 22 al. 5). */
export interface SettleDepositBalance {
  type: "SettleDepositBalance";
  lease_id: string;
  settled_on: string;
  accounts_approved_on: string;
  charges_deducted: number;
  monthly_rent: number;
  forwarding_address_given: boolean | null;
}

/** The keys' return and the due day: the termination's, else from the keys given now (no exit report: 2 months). */
function clockOf(command: ReturnDeposit): { keys: string; due_on: string } {
  const { lease } = command;
  if (lease.keys_returned_on !== null && lease.due_on !== null)
    return { keys: lease.keys_returned_on, due_on: lease.due_on };
  if (command.keys_returned_on === null)
    throw fieldError(
      "keys_returned_on",
      "Required: the lease ended without a keys' return, which starts the deposit's clock (loi n° 89-462 art. 22)",
      "Invalid deposit return",
    );
  return {
    keys: command.keys_returned_on,
    due_on: depositDueOn(command.keys_returned_on, null).details.due_on as string,
  };
}

function settleBalance(command: SettleDepositBalance, state: DepositState): DepositEvent[] {
  if (state === null)
    throw conflict(`The deposit of lease ${command.lease_id} is not returned yet: its held part comes after`);
  if (state.held === 0) throw conflict(`Nothing of the deposit of lease ${command.lease_id} was held`);
  if (state.balance)
    throw conflict(`The held part of lease ${command.lease_id} was settled on ${state.balance.settled_on}`);
  if (command.settled_on < state.returned_on)
    throw unprocessable("The balance comes after the deposit's return (loi n° 89-462 art. 22 al. 5)", [
      { field: "settled_on", message: `Before the deposit's return on ${state.returned_on}` },
    ]);
  const balance = depositBalanceVerdict({
    held: state.held,
    charges_deducted: command.charges_deducted,
    accounts_approved_on: command.accounts_approved_on,
  });
  enforce(balance);
  const due_on = balance.details.due_on as string;
  const late = latePenalty(
    due_on,
    command.settled_on,
    command.monthly_rent,
    command.forwarding_address_given,
  );
  return [
    {
      type: "LeaseDepositBalanceSettled",
      data: {
        lease_id: command.lease_id,
        settled_on: command.settled_on,
        accounts_approved_on: command.accounts_approved_on,
        charges_deducted: command.charges_deducted,
        balance_returned: balance.details.balance_returned as number,
        due_on,
        late_months: late.details.late_months as number,
        late_penalty: late.details.late_penalty as number,
      },
    },
  ];
}

export const depositDecider: Decider<DepositState, ReturnDeposit | SettleDepositBalance, DepositEvent> = {
  initialState: () => null,
  evolve: evolveDeposit,
  decide(command, state) {
    if (command.type === "SettleDepositBalance") return settleBalance(command, state);
    if (state !== null)
      throw conflict(`The deposit of lease ${command.lease_id} was returned on ${state.returned_on}`);
    const lease = command.lease;
    if (!lease.ended)
      throw conflict(
        `Lease ${command.lease_id} is not terminated: the deposit is returned after the keys (loi n° 89-462 art. 22)`,
      );
    const { keys, due_on } = clockOf(command);
    if (command.returned_on < keys)
      throw unprocessable("The deposit is returned after the keys (loi n° 89-462 art. 22)", [
        { field: "returned_on", message: `Before the keys' return on ${keys}` },
      ]);
    const split = depositReturnVerdict({
      amount: lease.amount,
      deductions: command.deductions,
      held: command.held,
      in_copropriete: command.in_copropriete,
    });
    enforce(split);
    const late = latePenalty(
      due_on,
      command.returned_on,
      lease.monthly_rent,
      command.forwarding_address_given,
    );
    return [
      {
        type: "LeaseDepositReturned",
        data: {
          lease_id: command.lease_id,
          returned_on: command.returned_on,
          deductions: command.deductions.map(
            ({ kind, amount, description, rent_call_id, invoice_media_id }) => ({
              kind,
              amount,
              description,
              rent_call_id,
              invoice_media_id,
            }),
          ),
          held: command.held,
          returned_amount: split.details.returned_amount as number,
          keys_returned_on: keys,
          due_on,
          late_months: late.details.late_months as number,
          late_penalty: late.details.late_penalty as number,
        },
      },
    ];
  },
};
