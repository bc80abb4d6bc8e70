import type { Decider, DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";
import { ApiError, conflict, notFound, validationError } from "../platform/errors.ts";
import { deterministicUuid } from "../platform/ids.ts";

/**
 * Credits (docs/design.md §7.2, docs/credits.md): a ledger per tenant, one stream
 * `credit_ledger-<tenant id>`. Its balance is the sum of its entries and never goes negative:
 * a purchase adds, a reservation (a signature, later) holds, a capture makes the hold final, a
 * release gives it back.
 */

/** The catalogue: small and fixed, the same for every tenant (docs/decisions.md, "Credits"). */
export const CREDIT_PACKAGES = [
  { id: "starter", name: "Starter", credits: 5, price: 25, currency: "EUR" },
  { id: "standard", name: "Standard", credits: 20, price: 80, currency: "EUR" },
  { id: "pro", name: "Pro", credits: 100, price: 300, currency: "EUR" },
] as const;
export type CreditPackage = (typeof CREDIT_PACKAGES)[number];
export const PACKAGE_IDS = CREDIT_PACKAGES.map((p) => p.id) as [
  CreditPackage["id"],
  ...CreditPackage["id"][],
];
export const packageOf = (id: string): CreditPackage | undefined => CREDIT_PACKAGES.find((p) => p.id === id);

export const creditLedgerStream = (tenantId: string) => `credit_ledger-${tenantId}`;

/** One purchase per provider checkout session, whatever the deliveries of its events. */
export const purchaseIdOf = (provider: string, sessionId: string) =>
  deterministicUuid("credit-purchase", provider, sessionId);

export interface CreditsPurchasedData {
  entry_id: string;
  purchase_id: string;
  package_id: string;
  credits: number;
  /** Euros paid, to the cent. */
  amount: number;
  currency: string;
  provider: string;
  provider_session_id: string;
  provider_payment_id: string | null;
  provider_event_id: string;
}
export interface CreditsReservedData {
  entry_id: string;
  reservation_id: string;
  credits: number;
  /** What the credits are held for (e.g. `lease_signature:<lease id>`). */
  purpose: string;
}
export interface CreditsSettledData {
  entry_id: string;
  reservation_id: string;
  credits: number;
}

export type CreditEvent =
  | DomainEvent<"CreditsPurchased", CreditsPurchasedData>
  | DomainEvent<"CreditsReserved", CreditsReservedData>
  | DomainEvent<"CreditsCaptured", CreditsSettledData>
  | DomainEvent<"CreditsReleased", CreditsSettledData>;

export const creditEventTypes = allEventTypes<CreditEvent["type"]>()([
  "CreditsPurchased",
  "CreditsReserved",
  "CreditsCaptured",
  "CreditsReleased",
]);

export type ReservationStatus = "HELD" | "CAPTURED" | "RELEASED";

export interface Ledger {
  /** Credits free to reserve: the sum of the entries. */
  balance: number;
  purchases: ReadonlySet<string>;
  reservations: ReadonlyMap<string, { credits: number; status: ReservationStatus }>;
}

export const emptyLedger = (): Ledger => ({ balance: 0, purchases: new Set(), reservations: new Map() });

/** What each entry adds to the balance (and to the credits held). */
export function entryOf(event: CreditEvent): { credits: number; held: number } {
  switch (event.type) {
    case "CreditsPurchased":
      return { credits: event.data.credits, held: 0 };
    case "CreditsReserved":
      return { credits: -event.data.credits, held: event.data.credits };
    case "CreditsCaptured":
      return { credits: 0, held: -event.data.credits };
    case "CreditsReleased":
      return { credits: event.data.credits, held: -event.data.credits };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

const withReservation = (ledger: Ledger, id: string, credits: number, status: ReservationStatus) =>
  new Map(ledger.reservations).set(id, { credits, status });

/** The ledger's fold; new objects each time (states may be kept and shared). */
export function evolveLedger(ledger: Ledger, event: CreditEvent): Ledger {
  const balance = ledger.balance + entryOf(event).credits;
  switch (event.type) {
    case "CreditsPurchased":
      return { ...ledger, balance, purchases: new Set(ledger.purchases).add(event.data.purchase_id) };
    case "CreditsReserved":
      return {
        ...ledger,
        balance,
        reservations: withReservation(ledger, event.data.reservation_id, event.data.credits, "HELD"),
      };
    case "CreditsCaptured":
      return {
        ...ledger,
        balance,
        reservations: withReservation(ledger, event.data.reservation_id, event.data.credits, "CAPTURED"),
      };
    case "CreditsReleased":
      return {
        ...ledger,
        balance,
        reservations: withReservation(ledger, event.data.reservation_id, event.data.credits, "RELEASED"),
      };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

/**
 * The credit ledger's decisions (docs/credits.md). A purchase already recorded and a settlement
 * already made are answered with no event, so a repeat (a duplicate webhook delivery) is a no-op.
 * Nothing ever takes the balance below zero: a reservation beyond it is a 402. With the events:
 * the credits area (purchases) and the signing area (reserve, capture, release) both decide on it.
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
