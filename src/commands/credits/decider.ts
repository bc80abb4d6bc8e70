import {
  type CreditEvent,
  type CreditsPurchasedData,
  emptyLedger,
  evolveLedger,
  type Ledger,
} from "../../events/credits.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError, conflict, notFound, validationError } from "../../platform/errors.ts";
import { deterministicUuid } from "../../platform/ids.ts";

/**
 * The credit ledger's decisions (docs/credits.md). A purchase already recorded and a settlement
 * already made are answered with no event, so a repeat (a duplicate webhook delivery) is a no-op.
 * Nothing ever takes the balance below zero: a reservation beyond it is a 402.
 */

export type CreditCommand =
  | { type: "RecordPurchase"; purchase: Omit<CreditsPurchasedData, "entry_id"> }
  | { type: "ReserveCredits"; reservation_id: string; credits: number; purpose: string }
  | { type: "CaptureCredits"; reservation_id: string }
  | { type: "ReleaseCredits"; reservation_id: string };

const positive = (credits: number) => {
  if (!Number.isInteger(credits) || credits <= 0)
    throw validationError("Invalid credits", [{ field: "credits", message: "Must be a positive integer" }]);
};

const recordPurchase = (
  { purchase }: Extract<CreditCommand, { type: "RecordPurchase" }>,
  ledger: Ledger,
): CreditEvent[] => {
  if (ledger.purchases.has(purchase.purchase_id)) return [];
  positive(purchase.credits);
  return [{ type: "CreditsPurchased", data: { entry_id: purchase.purchase_id, ...purchase } }];
};

const reserve = (cmd: Extract<CreditCommand, { type: "ReserveCredits" }>, ledger: Ledger): CreditEvent[] => {
  const known = ledger.reservations.get(cmd.reservation_id);
  if (known) {
    if (known.credits === cmd.credits) return [];
    throw conflict(`Reservation ${cmd.reservation_id} exists with ${known.credits} credits`);
  }
  positive(cmd.credits);
  if (ledger.balance < cmd.credits)
    throw new ApiError(
      "PaymentRequired",
      `Not enough credits: ${ledger.balance} available, ${cmd.credits} needed; buy a package (POST /api/credits/checkout)`,
    );
  return [
    {
      type: "CreditsReserved",
      data: {
        entry_id: cmd.reservation_id,
        reservation_id: cmd.reservation_id,
        credits: cmd.credits,
        purpose: cmd.purpose,
      },
    },
  ];
};

const settle = (
  cmd: Extract<CreditCommand, { type: "CaptureCredits" | "ReleaseCredits" }>,
  ledger: Ledger,
): CreditEvent[] => {
  const held = ledger.reservations.get(cmd.reservation_id);
  if (!held) throw notFound("Credit reservation", cmd.reservation_id);
  const target = cmd.type === "CaptureCredits" ? "CAPTURED" : "RELEASED";
  if (held.status === target) return [];
  if (held.status !== "HELD") throw conflict(`Reservation ${cmd.reservation_id} is ${held.status}`);
  const data = {
    entry_id: deterministicUuid("credit-settlement", cmd.reservation_id),
    reservation_id: cmd.reservation_id,
    credits: held.credits,
  };
  return [
    cmd.type === "CaptureCredits" ? { type: "CreditsCaptured", data } : { type: "CreditsReleased", data },
  ];
};

export function decideCredits(command: CreditCommand, ledger: Ledger): CreditEvent[] {
  switch (command.type) {
    case "RecordPurchase":
      return recordPurchase(command, ledger);
    case "ReserveCredits":
      return reserve(command, ledger);
    case "CaptureCredits":
    case "ReleaseCredits":
      return settle(command, ledger);
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
}

export const creditDecider: Decider<Ledger, CreditCommand, CreditEvent> = {
  initialState: emptyLedger,
  evolve: evolveLedger,
  decide: decideCredits,
};
