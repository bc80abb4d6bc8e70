import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CreditCommand, creditDecider } from "../../src/commands/credits/decider.ts";
import {
  type CreditEvent,
  emptyLedger,
  entryOf,
  evolveLedger,
  purchaseIdOf,
} from "../../src/events/credits.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const spec = deciderSpec(creditDecider);

const purchase = (session: string, credits = 5): CreditCommand => ({
  type: "RecordPurchase",
  purchase: {
    purchase_id: purchaseIdOf("local", session),
    package_id: "starter",
    credits,
    amount: 25,
    currency: "EUR",
    provider: "local",
    provider_session_id: session,
    provider_payment_id: null,
    provider_event_id: `evt_${session}`,
  },
});
const purchased = (session: string, credits = 5): CreditEvent => {
  const c = purchase(session, credits) as Extract<CreditCommand, { type: "RecordPurchase" }>;
  return { type: "CreditsPurchased", data: { entry_id: c.purchase.purchase_id, ...c.purchase } };
};
const R1 = "11111111-1111-4111-8111-111111111111";
const reserved: CreditEvent = {
  type: "CreditsReserved",
  data: { entry_id: R1, reservation_id: R1, credits: 1, purpose: "lease_signature:x" },
};

describe("credit ledger decider", () => {
  it("credits a purchase once: a repeat of the same provider session writes nothing", () => {
    spec
      .given([])
      .when(purchase("cs_1"))
      .then([purchased("cs_1")]);
    spec
      .given([purchased("cs_1")])
      .when(purchase("cs_1"))
      .thenNothing();
  });

  it("reserves within the balance, 402 beyond it", () => {
    spec
      .given([purchased("cs_1")])
      .when({ type: "ReserveCredits", reservation_id: R1, credits: 1, purpose: "lease_signature:x" })
      .then([reserved]);
    spec
      .given([])
      .when({ type: "ReserveCredits", reservation_id: R1, credits: 1, purpose: "x" })
      .thenRefuses(402, /Not enough credits: 0 available/);
    spec
      .given([purchased("cs_1", 1), reserved])
      .when({
        type: "ReserveCredits",
        reservation_id: "22222222-2222-4222-8222-222222222222",
        credits: 1,
        purpose: "x",
      })
      .thenRefuses(402);
  });

  it("captures or releases a held reservation once; the other way round is a 409", () => {
    const captured = spec
      .given([purchased("cs_1"), reserved])
      .when({ type: "CaptureCredits", reservation_id: R1 })
      .thenEvents();
    expect(captured.map((e) => e.type)).toEqual(["CreditsCaptured"]);
    spec
      .given([purchased("cs_1"), reserved, ...captured])
      .when({ type: "CaptureCredits", reservation_id: R1 })
      .thenNothing();
    spec
      .given([purchased("cs_1"), reserved, ...captured])
      .when({ type: "ReleaseCredits", reservation_id: R1 })
      .thenRefuses(409, /CAPTURED/);
    spec.given([]).when({ type: "ReleaseCredits", reservation_id: R1 }).thenRefuses(404);
    const released = spec
      .given([purchased("cs_1"), reserved])
      .when({ type: "ReleaseCredits", reservation_id: R1 })
      .thenEvents();
    const state = [purchased("cs_1"), reserved, ...released].reduce(evolveLedger, emptyLedger());
    expect(state.balance).toBe(5);
  });

  it("never goes negative, and its balance is the sum of its entries, whatever the commands", () => {
    const ids = ["a", "b", "c", "d"].map((c) => `${c.repeat(8)}-aaaa-4aaa-8aaa-${c.repeat(12)}`);
    const command: fc.Arbitrary<CreditCommand> = fc.oneof(
      fc
        .record({ session: fc.constantFrom("s1", "s2", "s3"), credits: fc.integer({ min: -2, max: 20 }) })
        .map(({ session, credits }) => purchase(session, credits)),
      fc.record({ id: fc.constantFrom(...ids), credits: fc.integer({ min: -1, max: 30 }) }).map(
        ({ id, credits }): CreditCommand => ({
          type: "ReserveCredits",
          reservation_id: id,
          credits,
          purpose: "p",
        }),
      ),
      fc.constantFrom(...ids).map((id): CreditCommand => ({ type: "CaptureCredits", reservation_id: id })),
      fc.constantFrom(...ids).map((id): CreditCommand => ({ type: "ReleaseCredits", reservation_id: id })),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
        let state = emptyLedger();
        const log: CreditEvent[] = [];
        for (const c of commands) {
          let events: CreditEvent[] = [];
          try {
            events = creditDecider.decide(c, state);
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
          }
          for (const e of events) {
            state = evolveLedger(state, e);
            log.push(e);
          }
          expect(state.balance).toBeGreaterThanOrEqual(0);
        }
        expect(state.balance).toBe(log.reduce((sum, e) => sum + entryOf(e).credits, 0));
        const held = [...state.reservations.values()].filter((r) => r.status === "HELD");
        expect(log.reduce((sum, e) => sum + entryOf(e).held, 0)).toBe(
          held.reduce((s, r) => s + r.credits, 0),
        );
      }),
      { numRuns: 300 },
    );
  });
});
