import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookDecider } from "../../src/commands/books/index.ts";
import { mandateDecider } from "../../src/commands/books/mandates.ts";
import { type AccountCommand, accountDecider } from "../../src/commands/rentCycle/decider.ts";
import { mandateOn } from "../../src/events/books/index.ts";
import {
  type AccountEvent,
  emptyAccount,
  evolveAccount,
  type LeaseAccount,
} from "../../src/events/rentCycle.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { feeOf, isBalanced, letteringCode, postingOf } from "../../src/projections/books/index.ts";
import { checkFec, FEC_FIELDS } from "../../src/queries/books/index.ts";

const LEASE = "00000000-0000-4000-8000-000000000001";
const facts = { deposit_cents: 150_000, start_date: "2025-01-01" };

const month = (i: number) => {
  const y = 2025 + Math.floor(i / 12);
  const m = String((i % 12) + 1).padStart(2, "0");
  const last = new Date(Date.UTC(y, (i % 12) + 1, 0)).getUTCDate();
  return { period_start: `${y}-${m}-01`, period_end: `${y}-${m}-${last}`, due_date: `${y}-${m}-05` };
};

/** Runs commands through the rent cycle's own decider: the events are those the service appends. */
function run(commands: AccountCommand[]): { events: AccountEvent[]; account: LeaseAccount } {
  let account = emptyAccount();
  const events: AccountEvent[] = [];
  for (const c of commands) {
    try {
      for (const e of accountDecider.decide(c, account)) {
        events.push(e);
        account = evolveAccount(account, e);
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return { events, account };
}

const tenantBalance = (events: AccountEvent[]) =>
  events
    .map((e) => postingOf(e, facts, "2026-06-01"))
    .flatMap((p) => p?.lines ?? [])
    .filter((l) => l.tenant)
    .reduce((s, l) => s + l.debit - l.credit, 0);

describe("books: what each money event posts (docs/accounting.md)", () => {
  it("a rent call debits the tenant and credits rents and recovered charges", () => {
    const [call] = run([
      {
        type: "IssueRentCalls",
        lease_id: LEASE,
        periods: [
          { ...month(0), rent_amount: 800, charges_amount: 50.5, total_amount: 850.5, prorated: null },
        ],
      },
    ]).events;
    const p = postingOf(call, facts, "2025-01-01");
    expect(p).toMatchObject({ journal: "VT", date: "2025-01-05", label: "Appel de loyer janvier 2025" });
    expect(p?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ["411000", 85_050, 0],
      ["706000", 0, 80_000],
      ["708000", 0, 5_050],
    ]);
  });

  it("the deposit is received at activation and returned with its deductions", () => {
    const received = postingOf(
      { type: "LeaseActivated", data: { lease_id: LEASE, effective_date: "2025-01-01" } },
      facts,
      "2025-01-01",
    );
    expect(received?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ["512000", 150_000, 0],
      ["165000", 0, 150_000],
    ]);
    const returned = postingOf(
      {
        type: "LeaseDepositReturned",
        data: {
          lease_id: LEASE,
          returned_on: "2026-03-01",
          deductions: [
            {
              kind: "UNPAID_RENT",
              amount: 300,
              description: "Loyer",
              rent_call_id: "c1",
              invoice_media_id: null,
            },
            {
              kind: "REPAIR",
              amount: 200.1,
              description: "Peinture",
              rent_call_id: null,
              invoice_media_id: "m",
            },
          ],
          held: 0,
          returned_amount: 999.9,
          keys_returned_on: "2026-02-01",
          due_on: "2026-04-01",
          late_months: 0,
          late_penalty: 0,
        },
      },
      facts,
      "2026-03-01",
    );
    expect(returned && isBalanced(returned)).toBe(true);
    expect(returned?.lines.map((l) => [l.account, l.debit, l.credit, l.call_id])).toEqual([
      ["165000", 150_000, 0, null],
      ["512000", 0, 99_990, null],
      ["411000", 0, 30_000, "c1"],
      ["758000", 0, 20_010, null],
    ]);
  });

  it("whatever the calls, payments and cancellations, every posting balances and the tenant's account is the lease account's balance", () => {
    const ids = [0, 1, 2, 3, 4].map((i) => `00000000-0000-4000-8000-00000000010${i}`);
    const command: fc.Arbitrary<AccountCommand> = fc.oneof(
      fc
        .record({
          i: fc.integer({ min: 0, max: 14 }),
          rent: fc.integer({ min: 1, max: 200_000 }),
          charges: fc.integer({ min: 0, max: 20_000 }),
        })
        .map(
          ({ i, rent, charges }): AccountCommand => ({
            type: "IssueRentCalls",
            lease_id: LEASE,
            periods: [
              {
                ...month(i),
                rent_amount: rent / 100,
                charges_amount: charges / 100,
                total_amount: (rent + charges) / 100,
                prorated: null,
              },
            ],
          }),
        ),
      fc.record({ id: fc.constantFrom(...ids), amount: fc.integer({ min: 1, max: 400_000 }) }).map(
        ({ id, amount }): AccountCommand => ({
          type: "RecordPayment",
          lease_id: LEASE,
          payment_id: id,
          amount: amount / 100,
          paid_on: "2025-06-01",
          method: "VIREMENT_BANCAIRE",
          reference: null,
          payer_lessee_id: null,
          today: "2026-12-01",
          lease_start_date: "2025-01-01",
          lease_signed_on: null,
        }),
      ),
      fc.constantFrom(...ids).map(
        (id): AccountCommand => ({
          type: "CancelPayment",
          lease_id: LEASE,
          payment_id: id,
          reason: "rejet",
        }),
      ),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const { events, account } = run(commands);
        for (const e of events) {
          const p = postingOf(e, facts, "2026-06-01");
          if (p) expect(isBalanced(p)).toBe(true);
        }
        expect(tenantBalance(events)).toBe(account.balance_cents);
      }),
      { numRuns: 300 },
    );
  });

  it("lettering codes run A..Z, AA.., as accounting software shows them", () => {
    expect([1, 26, 27, 52, 703].map(letteringCode)).toEqual(["A", "Z", "AA", "AZ", "AAA"]);
  });
});

describe("closing a book's year", () => {
  const close = (year: number, closed_through: number | null, today = "2026-12-02") =>
    bookDecider.decide({ type: "CloseBookYear", book_id: LEASE, year, today }, { closed_through });

  it("closes a year that is over, in order", () => {
    expect(close(2025, null)).toEqual([
      { type: "BookPeriodClosed", data: { book_id: LEASE, year: 2025, closed_on: "2026-12-02" } },
    ]);
    expect(close(2025, 2024)).toHaveLength(1);
  });
  it("refuses the current year until its last day is past: closing 2026 is possible from 2027-01-01", () => {
    expect(() => close(2026, null, "2026-12-31")).toThrow(/not over yet/);
    expect(close(2026, null, "2027-01-01")).toHaveLength(1);
  });
  it("refuses a year already closed, and a year after an open one", () => {
    expect(() => close(2024, 2025)).toThrow(expect.objectContaining({ status: 409 }));
    expect(() => close(2025, 2025)).toThrow(/already closed/);
    expect(() => close(2025, 2023)).toThrow(/Close 2024 first/);
  });
});

describe("the FEC checker (LPF art. A47 A-1)", () => {
  const header = FEC_FIELDS.join("\t");
  const line = (num: number, account: string, debit: string, credit: string, let_ = "", dateLet = "") =>
    [
      "VT",
      "Loyers appelés",
      String(num),
      "20250105",
      account,
      "Locataires",
      "",
      "",
      "AL202501",
      "20250105",
      "Appel",
      debit,
      credit,
      let_,
      dateLet,
      "20250105",
      "",
      "",
    ].join("\t");
  const file = (...lines: string[]) => `${[header, ...lines].join("\r\n")}\r\n`;

  it("accepts a balanced file numbered without gaps", () => {
    expect(checkFec(file(line(1, "411000", "850,50", "0,00"), line(1, "706000", "0,00", "850,50")))).toEqual(
      [],
    );
  });
  it("names an unbalanced entry, a gap in the numbers, a dot decimal, a wrong field count and unbalanced lettering", () => {
    const problems = checkFec(
      file(
        line(1, "411000", "850,50", "0,00", "A", "20250110"),
        line(1, "706000", "0,00", "850,00"),
        line(3, "512000", "10.00", "0,00"),
        "VT\tshort",
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "entry 1 is not balanced",
        "entry numbers: 3 found where 2 was expected (a gap or a disorder)",
        "line 4: amounts must use a decimal comma",
        "line 5: 2 fields, 18 expected",
        "lettering A is not balanced",
      ]),
    );
  });
});

describe("management mandates", () => {
  const OWNER = "00000000-0000-4000-8000-0000000000aa";
  const signed = (starts_on: string, ends_on: string | null = null) => ({
    mandate_id: `m-${starts_on}`,
    owner_id: OWNER,
    fee_rate: 0.07,
    vat_rate: 0.2,
    starts_on,
    ends_on,
  });
  const sign = (starts_on: string, state: ReturnType<typeof signed>[]) =>
    mandateDecider.decide(
      { type: "SignManagementMandate", mandate: { ...signed(starts_on), mandate_id: "new" } },
      state,
    );

  it("signs a first mandate, and a next one from the day after the previous ends", () => {
    expect(sign("2025-01-01", [])).toHaveLength(1);
    expect(sign("2025-07-01", [signed("2025-01-01", "2025-06-30")])).toHaveLength(1);
    expect(() => sign("2025-06-30", [signed("2025-01-01", "2025-06-30")])).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
  it("refuses a second mandate while one is in force, and an end before the start", () => {
    expect(() => sign("2025-07-01", [signed("2025-01-01")])).toThrow(
      expect.objectContaining({ status: 409 }),
    );
    const end = (ends_on: string) =>
      mandateDecider.decide({ type: "EndManagementMandate", owner_id: OWNER, ends_on }, [
        signed("2025-01-01"),
      ]);
    expect(end("2025-01-01")).toHaveLength(1);
    expect(() => end("2024-12-31")).toThrow(expect.objectContaining({ status: 400 }));
  });
  it("the mandate in force on a day: from its start to its end, both included", () => {
    const ms = [signed("2025-01-01", "2025-06-30"), signed("2025-07-01")];
    expect(mandateOn(ms, "2024-12-31")).toBeNull();
    expect(mandateOn(ms, "2025-06-30")?.starts_on).toBe("2025-01-01");
    expect(mandateOn(ms, "2025-07-01")?.starts_on).toBe("2025-07-01");
  });
  it("the fee is the rate of what is collected, VAT on top, to the cent", () => {
    expect(feeOf(85_000, { fee_rate: 0.07, vat_rate: 0.2 })).toBe(7_140);
    expect(feeOf(33_333, { fee_rate: 0.065, vat_rate: 0.2 })).toBe(2_600);
  });
});
