import type { Deduction, DepositEvent, DepositReturn } from "../../events/deposits.ts";
import { evolveDeposit } from "../../events/deposits.ts";
import { depositReturnVerdict, latePenalty } from "../../law/depositReturn.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, enforce, unprocessable } from "../../platform/errors.ts";

/** Returning a deposit (loi n° 89-462 art. 22): the route looked up the lease's and the deductions' facts. */
export interface ReturnDeposit {
  type: "ReturnDeposit";
  lease_id: string;
  returned_on: string;
  deductions: (Deduction & { call_remaining?: number | null; invoice_found?: boolean })[];
  held: number;
  /** The lease as terminated: null when it has not been through POST .../termination. */
  lease: { amount: number; monthly_rent: number; keys_returned_on: string; due_on: string } | null;
}

export const depositDecider: Decider<DepositReturn | null, ReturnDeposit, DepositEvent> = {
  initialState: () => null,
  evolve: evolveDeposit,
  decide(command, state) {
    if (state !== null)
      throw conflict(`The deposit of lease ${command.lease_id} was returned on ${state.returned_on}`);
    const lease = command.lease;
    if (lease === null)
      throw conflict(
        `Lease ${command.lease_id} is not terminated with its keys returned: the deposit is returned after (loi n° 89-462 art. 22)`,
      );
    if (command.returned_on < lease.keys_returned_on)
      throw unprocessable("The deposit is returned after the keys (loi n° 89-462 art. 22)", [
        { field: "returned_on", message: `Before the keys' return on ${lease.keys_returned_on}` },
      ]);
    const split = depositReturnVerdict({
      amount: lease.amount,
      deductions: command.deductions,
      held: command.held,
    });
    enforce(split);
    const late = latePenalty(lease.due_on, command.returned_on, lease.monthly_rent);
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
          due_on: lease.due_on,
          late_months: late.details.late_months as number,
          late_penalty: late.details.late_penalty as number,
        },
      },
    ];
  },
};
