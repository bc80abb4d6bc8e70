import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CollectionCandidate,
  type CollectionCommand,
  collectionDecider,
  type StatusReport,
} from "../../../src/commands/bank/collectionDecider.ts";
import { type LedgerCommand, ledgerDecider, lineIdentities } from "../../../src/commands/bank/ledger.ts";
import { parseStatusReport } from "../../../src/commands/bank/parsers/pain002.ts";
import {
  bankPaymentDecider,
  collectionSettlementOf,
  settlementOf,
} from "../../../src/commands/bank/payments.ts";
import {
  type CollectionEvent,
  emptyCollections,
  evolveCollections,
  messageIdOf,
  paymentInfoIdOf,
} from "../../../src/events/bank/collections.ts";
import { emptyLedger, evolveLedger } from "../../../src/events/bank/index.ts";
import {
  type AccountEvent,
  emptyAccount,
  evolveAccount,
  paymentReferenceOf,
  rentCallId,
} from "../../../src/events/rentCycle.ts";
import { cents } from "../../../src/law/money.ts";
import { earliestCollectionDate, isTargetBusinessDay } from "../../../src/law/sepaCalendar.ts";
import { deciderSpec, refusal } from "../../support/deciderSpec.ts";

/** SEPA collection batches and their status reports, without a database (docs/bank.md). */

const ACCOUNT = "8d1c2f4e-8a8e-4a57-9d3e-4bb5c8d1a0aa";
const BATCH = "00000000-0000-4000-8000-0000000000c1";
const NEXT = "00000000-0000-4000-8000-0000000000c2";
const LEASE_A = "5b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
const LEASE_B = "5b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a002";
const MANDATE_A = "6b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";
const MANDATE_B = "6b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a002";
const janA = rentCallId(LEASE_A, "2027-01-01");
const janB = rentCallId(LEASE_B, "2027-01-01");
const febA = rentCallId(LEASE_A, "2027-02-01");

const candidate = (
  call: string,
  lease: string,
  mandate: string,
  due_date: string,
  used = false,
): CollectionCandidate => ({
  rent_call_id: call,
  lease_id: lease,
  payment_reference: paymentReferenceOf(call),
  due_date,
  open_amount: 850.1,
  mandate: { mandate_id: mandate, rum: `PMS-${mandate.slice(0, 8)}`, signed_on: "2026-11-02", used },
  notified_on: "2026-11-25",
  prenotification_days: null,
});
const candidates = [
  candidate(janA, LEASE_A, MANDATE_A, "2027-01-05"),
  candidate(janB, LEASE_B, MANDATE_B, "2027-01-05", true),
  candidate(febA, LEASE_A, MANDATE_A, "2027-02-05"),
];
const creating = (over: Partial<Extract<CollectionCommand, { type: "CreateCollection" }>> = {}) =>
  ({
    type: "CreateCollection",
    collection_id: BATCH,
    bank_account_id: ACCOUNT,
    due_on: "2027-01-05",
    today: "2026-12-03",
    now: "2026-12-03T10:00:00.000Z",
    creditor: {
      name: "SCI Les Tilleuls",
      iban: "FR7630006000011234567890189",
      bic: null,
      creditor_id: "FR72ZZZ123456",
    },
    candidates,
    ...over,
  }) as const;
const spec = deciderSpec(collectionDecider);
const created = spec.given([]).when(creating()).thenEvents();
const [batch] = created;
const transactions = batch.type === "SepaCollectionCreated" ? batch.data.transactions : [];

const reporting = (report: Partial<StatusReport>, collection_id = BATCH): CollectionCommand => ({
  type: "ReportStatus",
  collection_id,
  bank_account_id: ACCOUNT,
  report: {
    message_id: "BNPAFRPP20270106R0042",
    original_message_id: messageIdOf(collection_id),
    group_status: "PART",
    group_reason: null,
    payments: [],
    ...report,
  },
});
const rejectA: Partial<StatusReport> = {
  payments: [
    {
      original_id: paymentInfoIdOf(BATCH, "FRST"),
      status: "PART",
      reason: null,
      transactions: [{ end_to_end_id: paymentReferenceOf(janA), status: "RJCT", reason: "AC04" }],
    },
  ],
};

describe("creating a batch", () => {
  it("leaves out, with its reason, a call pre-notified less than 14 calendar days before the debit", () => {
    const [a, b] = candidates;
    const events = spec
      .given([])
      .when(
        creating({
          candidates: [
            { ...a, notified_on: "2026-12-22" }, // 14 days before 5 January: in
            { ...b, notified_on: "2026-12-23" }, // 13 days: out
          ],
        }),
      )
      .thenEvents();
    const data = events[0].type === "SepaCollectionCreated" ? events[0].data : null;
    expect(data?.transactions.map((x) => x.rent_call_id)).toEqual([janA]);
    expect(data?.left_out).toEqual([
      expect.objectContaining({
        rent_call_id: janB,
        reason: "PRENOTIFICATION_LATE",
        notified_on: "2026-12-23",
      }),
    ]);
    expect(data?.left_out?.[0].message).toMatch(/14 calendar days.*EPC016-06/);
  });

  it("refuses a batch whose every call was pre-notified too late, or not at all, naming each", () => {
    const [a, b] = candidates;
    const refused = spec
      .given([])
      .when(
        creating({
          candidates: [
            { ...a, notified_on: null },
            { ...b, notified_on: "2027-01-01" },
          ],
        }),
      )
      .thenRefuses(409, /pre-notification/);
    expect(refused.details?.map((d) => d.message.slice(0, 46))).toEqual([
      `Rent call ${janA}`.slice(0, 46),
      `Rent call ${janB}`.slice(0, 46),
    ]);
  });

  it("a shorter delay the lease agreed lets a later pre-notification in", () => {
    const [a] = candidates;
    const events = spec
      .given([])
      .when(creating({ candidates: [{ ...a, notified_on: "2026-12-31", prenotification_days: 5 }] }))
      .thenEvents();
    expect(events[0].type === "SepaCollectionCreated" && events[0].data.transactions.length).toBe(1);
  });

  it("takes every open call due on or before the date: FRST for an unused mandate, RCUR for a used one", () => {
    expect(created).toEqual([
      {
        type: "SepaCollectionCreated",
        data: expect.objectContaining({ collection_id: BATCH, due_on: "2027-01-05" }),
      },
    ]);
    expect(transactions.map((x) => [x.rent_call_id, x.sequence, x.amount, x.end_to_end_id])).toEqual([
      [janA, "FRST", 850.1, paymentReferenceOf(janA)],
      [janB, "RCUR", 850.1, paymentReferenceOf(janB)],
    ]);
    expect(transactions[0]).toMatchObject({ mandate_id: MANDATE_A, mandate_signed_on: "2026-11-02" });
    expect(new Set(transactions.map((x) => x.payment_id)).size).toBe(2);
  });

  it("never collects a call twice; the mandate's next batch is RCUR; one batch per account and date", () => {
    spec
      .given(created)
      .when(creating({ collection_id: NEXT }))
      .thenRefuses(409, /already collects this account on 2027-01-05/);
    const next = spec
      .given(created)
      .when(creating({ collection_id: NEXT, due_on: "2027-02-05" }))
      .thenEvents();
    const taken = next[0].type === "SepaCollectionCreated" ? next[0].data.transactions : [];
    expect(taken.map((x) => [x.rent_call_id, x.sequence])).toEqual([[febA, "RCUR"]]);
    spec
      .given([...created, ...next])
      .when(creating({ collection_id: "00000000-0000-4000-8000-0000000000c3", due_on: "2027-03-05" }))
      .thenRefuses(409, /Nothing to collect/);
  });

  it("refuses without a creditor identifier, or a due date under D-1", () => {
    spec
      .given([])
      .when(creating({ creditor: { ...creating().creditor, creditor_id: null } }))
      .thenRefuses(409, /creditor identifier/);
    spec
      .given([])
      .when(creating({ due_on: "2026-12-03" }))
      .thenRefuses(400, /Invalid collection/, ["due_on"]);
    // Thursday before Easter 2027: Good Friday and Easter Monday are TARGET2 holidays.
    expect(earliestCollectionDate("2027-03-25")).toBe("2027-03-30");
    spec
      .given([])
      .when(creating({ today: "2027-03-25", due_on: "2027-03-29" }))
      .thenRefuses(400, /Invalid collection/, ["due_on"]);
    expect(
      spec
        .given([])
        .when(creating({ today: "2027-03-25", due_on: "2027-03-30" }))
        .thenEvents(),
    ).toHaveLength(1);
    expect(
      ["2026-12-25", "2026-12-26", "2027-01-01", "2027-05-01", "2026-12-05"].map(isTargetBusinessDay),
    ).toEqual([false, false, false, false, false]);
    expect(isTargetBusinessDay("2026-12-04")).toBe(true);
  });
});

describe("status reports", () => {
  it("rejects the transactions it names with their reason, once", () => {
    spec
      .given(created)
      .when(reporting(rejectA))
      .then([
        {
          type: "SepaCollectionRejected",
          data: {
            collection_id: BATCH,
            bank_account_id: ACCOUNT,
            report_id: "BNPAFRPP20270106R0042",
            rejections: [
              {
                end_to_end_id: paymentReferenceOf(janA),
                rent_call_id: janA,
                lease_id: LEASE_A,
                payment_id: transactions[0].payment_id,
                reason_code: "AC04",
              },
            ],
          },
        },
      ]);
    const rejected = spec.given(created).when(reporting(rejectA)).thenEvents();
    spec
      .given([...created, ...rejected])
      .when(reporting(rejectA))
      .thenNothing();
  });

  it("a rejected file or PmtInf rejects all it holds; accepted transactions change nothing", () => {
    const all = spec
      .given(created)
      .when(reporting({ group_status: "RJCT", group_reason: "MS02" }))
      .thenEvents();
    expect(
      all[0].type === "SepaCollectionRejected" && all[0].data.rejections.map((r) => r.reason_code),
    ).toEqual(["MS02", "MS02"]);
    const rcur = spec
      .given(created)
      .when(
        reporting({
          payments: [
            { original_id: paymentInfoIdOf(BATCH, "RCUR"), status: "RJCT", reason: "MD06", transactions: [] },
          ],
        }),
      )
      .thenEvents();
    expect(
      rcur[0].type === "SepaCollectionRejected" && rcur[0].data.rejections.map((r) => r.rent_call_id),
    ).toEqual([janB]);
    spec
      .given(created)
      .when(
        reporting({
          payments: [
            {
              original_id: null,
              status: "ACCP",
              reason: null,
              transactions: [{ end_to_end_id: paymentReferenceOf(janA), status: "ACSC", reason: null }],
            },
          ],
        }),
      )
      .thenNothing();
  });

  it("refuses a report of another file, a transaction it does not hold, an unknown batch", () => {
    spec
      .given(created)
      .when(reporting({ ...rejectA, original_message_id: "AUTRE" }))
      .thenRefuses(400, /Invalid status report/, ["file"]);
    spec
      .given(created)
      .when(
        reporting({
          payments: [
            {
              original_id: null,
              status: null,
              reason: null,
              transactions: [{ end_to_end_id: "X", status: "RJCT", reason: "AC04" }],
            },
          ],
        }),
      )
      .thenRefuses(400, /Invalid status report/, ["file"]);
    expect(
      refusal(() =>
        collectionDecider.decide(
          reporting({
            payments: [
              {
                original_id: null,
                status: null,
                reason: null,
                transactions: [{ end_to_end_id: "X", status: "RJCT", reason: "AC04" }],
              },
            ],
          }),
          created.reduce(evolveCollections, emptyCollections()),
        ),
      ).details?.[0].message,
    ).toBe("Transaction X is not in this collection");
    spec.given(created).when(reporting(rejectA, NEXT)).thenRefuses(404);
  });

  it("a call rejected for insufficient funds (AM04) may be collected again; AC04 not with that mandate", () => {
    const am04 = (reason: string): Partial<StatusReport> => ({
      payments: [
        {
          original_id: null,
          status: null,
          reason: null,
          transactions: [{ end_to_end_id: paymentReferenceOf(janA), status: "RJCT", reason }],
        },
      ],
    });
    const insufficient = spec
      .given(created)
      .when(reporting(am04("AM04")))
      .thenEvents();
    const state = [...created, ...insufficient].reduce(evolveCollections, emptyCollections());
    expect(state.collecting[janA]).toBeUndefined();
    expect(state.collecting[janB]).toBe(BATCH);
    const next = spec
      .given([...created, ...insufficient])
      .when(creating({ collection_id: NEXT, due_on: "2027-01-12" }))
      .thenEvents();
    expect(
      next[0].type === "SepaCollectionCreated" &&
        next[0].data.transactions.map((x) => [x.rent_call_id, x.sequence]),
    ).toEqual([[janA, "RCUR"]]);
    // Account closed: presenting it again with the same mandate would fail again.
    const closed = spec
      .given(created)
      .when(reporting(am04("AC04")))
      .thenEvents();
    spec
      .given([...created, ...closed])
      .when(creating({ collection_id: NEXT, due_on: "2027-01-12" }))
      .thenRefuses(409, /Nothing to collect/);
    // With a new mandate (a new IBAN), it is collected again, as a first collection.
    const renewed = candidates.map((k) =>
      k.rent_call_id === janA ? { ...k, mandate: { ...k.mandate, mandate_id: NEXT, used: false } } : k,
    );
    const again = spec
      .given([...created, ...closed])
      .when(creating({ collection_id: NEXT, due_on: "2027-01-12", candidates: renewed }))
      .thenEvents();
    expect(
      again[0].type === "SepaCollectionCreated" &&
        again[0].data.transactions.map((x) => [x.rent_call_id, x.sequence]),
    ).toEqual([[janA, "FRST"]]);
  });
});

describe("settlement on the lease accounts", () => {
  it("a batch pays its calls by direct debit; a reject cancels exactly that payment, no fee", () => {
    const issued: AccountEvent = {
      type: "RentCallIssued",
      data: {
        call_id: janA,
        lease_id: LEASE_A,
        period_start: "2027-01-01",
        period_end: "2027-01-31",
        due_date: "2027-01-05",
        rent_amount: 800.1,
        charges_amount: 50,
        total_amount: 850.1,
        prorated: null,
      } as never,
    };
    let account = evolveAccount(emptyAccount(), issued);
    const apply = (events: readonly CollectionEvent[]) => {
      for (const c of collectionSettlementOf(events).filter((c) => c.lease_id === LEASE_A)) {
        const out = bankPaymentDecider.decide(c, account);
        account = out.reduce(evolveAccount, account);
        // Settling again writes nothing.
        expect(bankPaymentDecider.decide(c, account)).toEqual([]);
      }
    };
    apply(created);
    expect(account.calls[0].paid_cents).toBe(85010);
    expect(account.payments[0]).toMatchObject({
      method: "PRELEVEMENT_AUTOMATIQUE",
      paid_on: "2027-01-05",
      source: { bank_account_id: ACCOUNT, bank_line_id: null, sepa_collection_id: BATCH },
    });
    apply(spec.given(created).when(reporting(rejectA)).thenEvents());
    expect(account.calls).toHaveLength(1);
    expect(account.calls[0].paid_cents).toBe(0);
    expect(account.balance_cents).toBe(85010);
    expect(account.payments[0].cancelled).toEqual({ reason: "Bank return AC04" });
  });
});

describe("reading a pain.002", () => {
  it("gives the original message, each transaction's status and ISO reason; a broken file is a 400", () => {
    const xml = readFileSync("test/fixtures/bank/pain002-rejects-bnp.xml", "utf8")
      .replaceAll("@@MSGID@@", "M1")
      .replaceAll("@@PMTINF@@", "M1-FRST")
      .replaceAll("@@E2E:1@@", "RF1")
      .replaceAll("@@E2E:2@@", "RF2");
    expect(parseStatusReport(Buffer.from(xml))).toEqual({
      message_id: "BNPAFRPP20270106R0042",
      original_message_id: "M1",
      group_status: "PART",
      group_reason: null,
      payments: [
        {
          original_id: "M1-FRST",
          status: "PART",
          reason: null,
          transactions: [
            { end_to_end_id: "RF1", status: "RJCT", reason: "AC04" },
            { end_to_end_id: "RF2", status: "RJCT", reason: "AM04" },
          ],
        },
      ],
    });
    const broken = refusal(() => parseStatusReport(Buffer.from("<Document><x></Document>")));
    expect(broken.status).toBe(400);
    expect(broken.details?.[0].field).toBe("file");
    expect(refusal(() => parseStatusReport(Buffer.from("<Document/>"))).details?.[0].message).toMatch(
      /no CstmrPmtStsRpt/,
    );
  });
});

describe("an R-transaction of a collected debit in a statement", () => {
  it("reverses that debit once; the ledger accounts for the line, which can no longer be undone", () => {
    const returning: CollectionCommand = {
      type: "ReturnDebit",
      collection_id: BATCH,
      bank_account_id: ACCOUNT,
      end_to_end_id: paymentReferenceOf(janB),
      reason_code: "MD06",
      line_id: "00000000-0000-4000-8000-0000000000d1",
    };
    const returned = spec.given(created).when(returning).thenEvents();
    expect(returned).toEqual([
      {
        type: "SepaCollectionRejected",
        data: expect.objectContaining({
          report_id: returning.line_id,
          rejections: [expect.objectContaining({ rent_call_id: janB, reason_code: "MD06" })],
        }),
      },
    ]);
    spec
      .given([...created, ...returned])
      .when(returning)
      .thenNothing();
    spec
      .given(created)
      .when({ ...returning, end_to_end_id: "RF00" })
      .thenRefuses(404);

    const line = {
      booked_on: "2027-02-12",
      amount: -850.1,
      label: "RETOUR PRLV SEPA MD06",
      counterparty_name: null,
      counterparty_iban: null,
      reference: paymentReferenceOf(janB),
      entry_ref: "2702120311",
      return_reason: "MD06",
    };
    const [lineId] = lineIdentities(ACCOUNT, [line]);
    const ledger = deciderSpec(ledgerDecider);
    const imported = ledger
      .given([])
      .when({
        type: "ImportStatement",
        bank_account_id: ACCOUNT,
        statement_id: "00000000-0000-4000-8000-0000000000a1",
        format: "CAMT054",
        lines: [line],
        calls: [],
      })
      .thenEvents();
    const settling: LedgerCommand = {
      type: "SettleDebitReturn",
      bank_account_id: ACCOUNT,
      line_id: lineId,
      collection_id: BATCH,
      end_to_end_id: paymentReferenceOf(janB),
    };
    const marked = ledger.given(imported).when(settling).thenEvents();
    expect(marked).toEqual([
      {
        type: "BankLineDebitReturned",
        data: {
          bank_account_id: ACCOUNT,
          line_id: lineId,
          collection_id: BATCH,
          end_to_end_id: paymentReferenceOf(janB),
          reason_code: "MD06",
        },
      },
    ]);
    const after = [...imported, ...marked];
    expect(after.reduce(evolveLedger, emptyLedger()).lines[lineId].status).toBe("MATCHED");
    ledger.given(after).when(settling).thenNothing();
    ledger
      .given(after)
      .when({ type: "UnmatchLine", bank_account_id: ACCOUNT, line_id: lineId, reason: "x" })
      .thenRefuses(409);
    // Its cancellation is the collection's: the ledger's settlement records or cancels nothing.
    expect(settlementOf(marked, after.reduce(evolveLedger, emptyLedger()))).toEqual([]);
  });
});

describe("property: whatever the order of batches, rejects and returns", () => {
  it("the debit payments not cancelled equal the transactions not rejected, to the cent; a call is collected once", () => {
    const leaseOf = (call: string) => (call === janB ? LEASE_B : LEASE_A);
    const issuedFor = (call: string, period: string, due: string): AccountEvent => ({
      type: "RentCallIssued",
      data: {
        call_id: call,
        lease_id: leaseOf(call),
        period_start: period,
        period_end: period,
        due_date: due,
        rent_amount: 800.1,
        charges_amount: 50,
        total_amount: 850.1,
        prorated: null,
      } as never,
    });
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("batch" as const),
        day: fc.integer({ min: 5, max: 28 }),
        month: fc.constantFrom("01", "02"),
      }),
      fc.record({
        kind: fc.constantFrom("reject" as const, "return" as const),
        batch: fc.nat(5),
        tx: fc.nat(3),
        reason: fc.constantFrom("AM04", "AC04", "MD06", "MS02"),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
        const events: CollectionEvent[] = [];
        const accounts = new Map([
          [
            LEASE_A,
            [issuedFor(janA, "2027-01-01", "2027-01-05"), issuedFor(febA, "2027-02-01", "2027-02-05")].reduce(
              evolveAccount,
              emptyAccount(),
            ),
          ],
          [LEASE_B, [issuedFor(janB, "2027-01-01", "2027-01-05")].reduce(evolveAccount, emptyAccount())],
        ]);
        let n = 0;
        for (const o of ops) {
          const state = events.reduce(evolveCollections, emptyCollections());
          const batches = Object.entries(state.batches);
          let command: CollectionCommand | null = null;
          if (o.kind === "batch") {
            n += 1;
            command = creating({
              collection_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
              due_on: `2027-${o.month}-${String(o.day).padStart(2, "0")}`,
            });
          } else if (batches.length > 0) {
            const [id, b] = batches[o.batch % batches.length];
            const t = b.transactions[o.tx % b.transactions.length];
            command =
              o.kind === "reject"
                ? reporting(
                    {
                      payments: [
                        {
                          original_id: null,
                          status: null,
                          reason: null,
                          transactions: [
                            { end_to_end_id: t.end_to_end_id, status: "RJCT", reason: o.reason },
                          ],
                        },
                      ],
                    },
                    id,
                  )
                : {
                    type: "ReturnDebit",
                    collection_id: id,
                    bank_account_id: ACCOUNT,
                    end_to_end_id: t.end_to_end_id,
                    reason_code: o.reason,
                    line_id: "00000000-0000-4000-8000-0000000000d1",
                  };
          }
          if (!command) continue;
          let decided: CollectionEvent[];
          try {
            decided = collectionDecider.decide(command, state);
          } catch {
            continue;
          }
          events.push(...decided);
          for (const c of collectionSettlementOf(decided)) {
            const account = accounts.get(c.lease_id)!;
            accounts.set(c.lease_id, bankPaymentDecider.decide(c, account).reduce(evolveAccount, account));
          }
        }
        const final = events.reduce(evolveCollections, emptyCollections());
        const live = Object.values(final.batches).flatMap((b) =>
          b.transactions.filter((t) => !b.rejected[t.end_to_end_id]),
        );
        const paid = [...accounts.values()].flatMap((a) => a.payments.filter((p) => !p.cancelled));
        expect(paid.reduce((s, p) => s + p.amount_cents, 0)).toBe(
          live.reduce((s, t) => s + cents(t.amount), 0),
        );
        // Never twice: a call is in one live transaction at most, and never paid beyond its amount.
        expect(new Set(live.map((t) => t.rent_call_id)).size).toBe(live.length);
        for (const a of accounts.values())
          for (const c of a.calls) expect(c.paid_cents).toBeLessThanOrEqual(c.total_cents);
      }),
      { numRuns: 300 },
    );
  });
});
