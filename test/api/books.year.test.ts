import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { bookIdOf } from "../../src/events/books/index.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { booksProjection } from "../../src/projections/books/index.ts";
import { checkFec } from "../../src/queries/books/index.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";

const run = promisify(execFile);
const AGENCY_IBAN = "FR7630004000031234567890143";
const TENANT_IBAN = "FR7610107001011234567890129";

/** A camt.054 notification of one entry: a tenant's transfer (CRDT, its RF reference), or its return (DBIT, AC04). */
const camt054 = (iban: string, booked: string, side: "CRDT" | "DBIT", reference: string | null) =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr><MsgId>NTF-${booked}-${side}</MsgId><CreDtTm>${booked}T07:00:00+01:00</CreDtTm></GrpHdr>
    <Ntfctn>
      <Id>NTF-${booked}-${side}-01</Id>
      <CreDtTm>${booked}T07:00:00+01:00</CreDtTm>
      <Acct><Id><IBAN>${iban}</IBAN></Id></Acct>
      <Ntry>
        <Amt Ccy="EUR">850.00</Amt>
        <CdtDbtInd>${side}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${booked}</Dt></BookgDt>
        <AcctSvcrRef>${booked.replaceAll("-", "")}${side}</AcctSvcrRef>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>LOYER-A2-0325</EndToEndId></Refs>
            <RltdPties>
              ${side === "CRDT" ? `<Dbtr><Pty><Nm>MARTIN CAMILLE</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>${TENANT_IBAN}</IBAN></Id></DbtrAcct>` : `<Cdtr><Pty><Nm>MARTIN CAMILLE</Nm></Pty></Cdtr><CdtrAcct><Id><IBAN>${TENANT_IBAN}</IBAN></Id></CdtrAcct>`}
            </RltdPties>
            ${side === "CRDT" ? `<RmtInf><Strd><CdtrRefInf><Ref>${reference}</Ref></CdtrRefInf></Strd></RmtInf>` : "<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>"}
          </TxDtls>
        </NtryDtls>
      </Ntry>
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>`);

const upload = (t: TestApp, as: TestTenant, accountId: string, bytes: Buffer) => {
  const { payload, type } = multipartForm(
    {},
    { content: bytes, filename: "releve.xml", type: "application/xml" },
  );
  return t.app.inject({
    method: "POST",
    url: `/api/bank-accounts/${accountId}/statements`,
    payload,
    headers: { "content-type": type, authorization: `Bearer ${as.key}` },
  });
};
const XSD = join(import.meta.dirname, "../fixtures/bank/xsd/pain.001.001.09.xsd");

/**
 * A quarter of a small portfolio through an agency (docs/accounting.md): two owners under
 * mandate, five leases, a transfer returned by the bank (camt.054, AC04), a departure with an
 * unpaid rent kept from the deposit, the owners' expenses (one cancelled) and a co-ownership
 * regularisation, then the payout to the owners. The FEC passes the checker, the statements' payouts are collected minus fees and
 * expenses, the pain.001 is valid against its XSD and the 2044 figures are those computed here.
 */
describe("books: a quarter of an agency's portfolio", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  it("owners' statements, payouts (pain.001), FEC and 2044 agree with the figures computed by hand", {
    timeout: 120_000,
  }, async () => {
    const as = await t.newTenant();
    const ok = (res: { statusCode: number; body: string }, status: number) =>
      expect(res.statusCode, res.body).toBe(status);
    const ownerOf = async (first_name: string, last_name: string, iban: string) => {
      const res = await t.request("POST", "/api/owners", {
        body: { category: "individual", first_name, last_name, email: `${first_name}@example.fr`, iban },
        as,
      });
      ok(res, 201);
      return res.json().id as string;
    };
    const helene = await ownerOf("Hélène", "Moreau", "FR7630006000011234567890189");
    const paul = await ownerOf("Paul", "Durand", "FR1420041010050500013M02606");
    ok(
      await t.request("POST", `/api/owners/${helene}/management-mandates`, {
        body: { fee_rate: 0.07, starts_on: "2025-01-01" },
        as,
      }),
      201,
    );
    ok(
      await t.request("POST", `/api/owners/${paul}/management-mandates`, {
        body: { fee_rate: 0.06, starts_on: "2025-01-01" },
        as,
      }),
      201,
    );
    const place = (await t.request("POST", "/api/places", { body: { name: "Résidence du Parc" }, as })).json()
      .id as string;
    const leaseOf = async (owner: string, name: string, rent: number, charges: number) => {
      const estate = await t.request("POST", `/api/places/${place}/estates`, {
        body: {
          name,
          estate_type_id: globalTypeIds.estate.apartment,
          area: 40,
          fiscal_identifier: name,
          owner_id: owner,
        },
        as,
      });
      ok(estate, 201);
      const { id } = await newLease(
        {
          estate_id: estate.json().id,
          rent_amount: rent,
          charges_amount: charges,
          deposit_amount: rent,
          payment_day: 5,
        },
        as,
      );
      ok(await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" }, as), 200);
      return { id, estate_id: estate.json().id as string };
    };
    const l1 = await leaseOf(helene, "A1", 800, 50);
    const l2 = await leaseOf(helene, "A2", 800, 50);
    const l3 = await leaseOf(paul, "B1", 800, 50);
    const l4 = await leaseOf(paul, "B2", 600, 40);
    const l5 = await leaseOf(paul, "B3", 500, 30);
    const store = t.service.platform.store;
    await issueRentCalls({ sql: t.sql, store }, { today: "2025-02-15", tenantId: as.id });
    const pay = async (lease: string, paid_on: string, amount: number) => {
      const res = await t.request("POST", `/api/leases/${lease}/payments`, {
        body: { method: "VIREMENT_BANCAIRE", paid_on, amount },
        as,
      });
      ok(res, 201);
      return res.json().id as string;
    };
    for (const month of ["01", "02"]) {
      await pay(l1.id, `2025-${month}-05`, 850);
      await pay(l2.id, `2025-${month}-05`, 850);
      await pay(l4.id, `2025-${month}-05`, 640);
      await pay(l5.id, `2025-${month}-05`, 530);
    }
    await pay(l3.id, "2025-01-05", 850);

    // The tenant of B1 leaves (notice for a job loss: one month), February unpaid.
    const calls3 = await eventually(
      async () => (await t.request("GET", `/api/leases/${l3.id}/rent-calls`, { as })).json(),
      (found) => Array.isArray(found) && found.length === 2,
    );
    const february3 = calls3.find((c: { period_start: string }) => c.period_start === "2025-02-01");
    ok(
      await t.request("POST", `/api/leases/${l3.id}/notices`, {
        body: { given_by: "LESSEE", received_on: "2025-01-20", reason: "JOB_LOSS" },
        as,
      }),
      201,
    );
    ok(
      await t.request("POST", `/api/estates/${l3.estate_id}/keys`, {
        body: { kind: "front door", count: 2 },
        as,
      }),
      201,
    );
    ok(
      await t.request("POST", `/api/estates/${l3.estate_id}/keys/handovers`, {
        body: {
          lease_id: l3.id,
          direction: "RETURNED",
          on: "2025-02-20",
          sets: [{ kind: "front door", count: 2 }],
        },
        as,
      }),
      201,
    );
    ok(await t.request("POST", `/api/leases/${l3.id}/termination`, { body: {}, as }), 200);
    ok(
      await t.request("POST", `/api/leases/${l3.id}/deposit/return`, {
        body: {
          returned_on: "2025-03-10",
          deductions: [
            {
              kind: "UNPAID_RENT",
              amount: 500,
              description: "Loyer de février 2025",
              rent_call_id: february3.id,
            },
          ],
        },
        as,
      }),
      201,
    );

    // March: the others' calls. A2's transfer, matched by its RF reference in a camt.054, comes back
    // (AC04, account closed): the payment is cancelled, recorded today, so its reversal is dated
    // today, in the open period (the quarter keeps its figures).
    const account = await t.request("POST", "/api/bank-accounts", {
      body: { label: "Agence du Parc - mandants", iban: AGENCY_IBAN, bic: "BNPAFRPP" },
      as,
    });
    ok(account, 201);
    const accountId = account.json().id as string;
    await issueRentCalls({ sql: t.sql, store }, { today: "2025-03-15", tenantId: as.id });
    await pay(l1.id, "2025-03-05", 850);
    await pay(l4.id, "2025-03-05", 640);
    await pay(l5.id, "2025-03-05", 530);
    const march2 = (
      await eventually(
        async () => (await t.request("GET", `/api/leases/${l2.id}/rent-calls`, { as })).json(),
        (found) => Array.isArray(found) && found.length === 3,
      )
    ).find((c: { period_start: string }) => c.period_start === "2025-03-01");
    const credit = await upload(
      t,
      as,
      accountId,
      camt054(AGENCY_IBAN, "2025-03-05", "CRDT", march2.payment_reference),
    );
    ok(credit, 201);
    expect(credit.json()).toMatchObject({ new_lines: 1, matched: 1 });
    const back = await upload(t, as, accountId, camt054(AGENCY_IBAN, "2025-03-11", "DBIT", null));
    ok(back, 201);
    expect(back.json()).toMatchObject({ new_lines: 1, matched: 1 });
    const cancelledPayments = await t.sql.query(
      "SELECT cancel_reason FROM lease_payments WHERE tenant_id = $1 AND lease_id = $2 AND status = 'CANCELLED'",
      [as.id, l2.id],
    );
    expect(cancelledPayments).toEqual([{ cancel_reason: "Bank return AC04" }]);

    // The owners' expenses.
    const expense = async (owner: string, body: Record<string, unknown>) => {
      const res = await t.request("POST", `/api/owners/${owner}/expenses`, { body, as });
      ok(res, 201);
      return res.json();
    };
    await expense(helene, { kind: "INSURANCE", amount: 180, paid_on: "2025-01-15", label: "Assurance PNO" });
    const wrong = await expense(helene, {
      kind: "WORKS",
      amount: 1200,
      paid_on: "2025-02-10",
      label: "Peinture du séjour",
      estate_id: l1.estate_id,
    });
    expect(wrong.entries).toHaveLength(2);
    await expense(helene, { kind: "WORKS", amount: 950, paid_on: "2025-02-12", label: "Peinture du séjour" });
    await expense(helene, {
      kind: "PROPERTY_TAX",
      amount: 700,
      paid_on: "2025-03-01",
      label: "Taxe foncière",
    });
    await expense(helene, {
      kind: "COOWNERSHIP_PROVISIONS",
      amount: 300,
      paid_on: "2025-01-02",
      label: "Appel de fonds T1",
    });
    await expense(helene, {
      kind: "COOWNERSHIP_REGULARISATION",
      amount: 45,
      paid_on: "2025-03-20",
      label: "Régularisation 2024 : part récupérable",
    });
    await expense(helene, {
      kind: "LOAN_INTEREST",
      amount: 420,
      paid_on: "2025-03-31",
      label: "Intérêts T1",
    });
    await expense(paul, {
      kind: "UNRECOVERED_CHARGES",
      amount: 35,
      paid_on: "2025-03-12",
      label: "Eau non récupérée",
      lease_id: l3.id,
    });
    await expense(paul, {
      kind: "ADMINISTRATION_FEES",
      amount: 60,
      paid_on: "2025-02-01",
      label: "Frais de procédure",
    });
    await expense(paul, { kind: "INSURANCE", amount: 150, paid_on: "2025-01-15", label: "Assurance PNO" });
    // An estate of another owner is refused; the wrong expense is cancelled (its reversal posted).
    ok(
      await t.request("POST", `/api/owners/${paul}/expenses`, {
        body: { kind: "WORKS", amount: 10, paid_on: "2025-02-01", label: "x", estate_id: l1.estate_id },
        as,
      }),
      422,
    );
    const cancelled = await t.request("POST", `/api/owners/${helene}/expenses/${wrong.id}/cancel`, { as });
    ok(cancelled, 200);
    expect(cancelled.json().entries).toHaveLength(4);
    ok(await t.request("POST", `/api/owners/${helene}/expenses/${wrong.id}/cancel`, { as }), 409);
    const listed = (await t.request("GET", `/api/owners/${helene}/expenses`, { as })).json();
    expect(listed).toHaveLength(7);

    // By hand. Fees: rate × (1 + 20 % VAT) of each payment kept (the returned one gives its fee back).
    const fee = (amount: number, rate: number) => Math.round(amount * 100 * rate * 1.2) / 100;
    const sum = (xs: number[]) => Math.round(xs.reduce((s, x) => s + x * 100, 0)) / 100;
    const heleneCollected = 850 * 6;
    const heleneFees = sum([...Array(6)].map(() => fee(850, 0.07)));
    const heleneExpenses = 180 + 950 + 700 + 300 + 420;
    const rentOfDeduction = Math.round((50000 * 800) / 850) / 100; // 500 of an 850 call, 800 of it rent
    const paulCollected = 850 + 500 + 640 * 3 + 530 * 3;
    const paulFees = sum([
      fee(850, 0.06),
      ...[...Array(3)].map(() => fee(640, 0.06)),
      ...[...Array(3)].map(() => fee(530, 0.06)),
    ]);
    const paulExpenses = 35 + 60 + 150;

    const statementOf = (owner: string) =>
      t.request("GET", `/api/owners/${owner}/statements?from=2025-01-01&to=2025-03-31`, { as });
    const before = await eventually(
      async () => (await statementOf(paul)).json(),
      (s) => s.expenses === paulExpenses,
    );
    expect(before).toMatchObject({
      collected: paulCollected,
      deposit_deductions: 500,
      fees: paulFees,
      expenses: paulExpenses,
      payout: sum([paulCollected, -paulFees, -paulExpenses]),
      paid_out: 0,
    });

    // The agency's account pays both owners what is due to them.
    const payout = await t.request("POST", `/api/bank-accounts/${accountId}/payouts`, {
      body: { on: "2025-03-31" },
      as,
    });
    ok(payout, 201);
    const dueHelene = sum([heleneCollected, -heleneFees, -heleneExpenses]);
    const duePaul = sum([paulCollected, -paulFees, -paulExpenses]);
    expect(payout.json().total).toBe(sum([dueHelene, duePaul]));
    expect(
      Object.fromEntries(
        payout.json().transfers.map((x: { owner_id: string; amount: number }) => [x.owner_id, x.amount]),
      ),
    ).toEqual({ [helene]: dueHelene, [paul]: duePaul });
    // Nothing more is due once paid.
    ok(
      await t.request("POST", `/api/bank-accounts/${accountId}/payouts`, {
        body: { on: "2025-03-31" },
        as,
      }),
      409,
    );
    expect((await t.request("GET", `/api/payouts/${payout.json().id}`, { as })).json()).toEqual(
      payout.json(),
    );
    const file = await t.request("GET", `/api/payouts/${payout.json().id}/file`, { as });
    ok(file, 200);
    expect(file.headers["content-type"]).toMatch(/application\/xml/);
    expect(file.body).toContain("<IBAN>FR1420041010050500013M02606</IBAN>");
    expect(file.body).toContain(`<CtrlSum>${sum([dueHelene, duePaul]).toFixed(2)}</CtrlSum>`);
    expect(file.body).toContain("<Nm>Helene Moreau</Nm>");
    const dir = await mkdtemp(join(tmpdir(), "pain001-"));
    try {
      await writeFile(join(dir, "payout.xml"), file.body);
      const checked = await run("xmllint", ["--noout", "--schema", XSD, join(dir, "payout.xml")]);
      expect(checked.stderr).toContain("validates");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // The statements: what was paid out is what was collected less fees and expenses.
    for (const [owner, collected, fees, expenses] of [
      [helene, heleneCollected, heleneFees, heleneExpenses],
      [paul, paulCollected, paulFees, paulExpenses],
    ] as const) {
      const s = await eventually(
        async () => (await statementOf(owner)).json(),
        (x) => x.paid_out > 0,
      );
      expect(s).toMatchObject({ collected, fees, expenses });
      expect(s.paid_out).toBe(sum([s.collected, -s.fees, -s.expenses]));
      expect(s.paid_out).toBe(s.payout);
    }

    // The returned payment's reversal is in the open year: the owner owes back what was paid out of it.
    const later = (
      await t.request("GET", `/api/owners/${helene}/statements?from=2026-01-01&to=2026-12-31`, { as })
    ).json();
    expect(later).toMatchObject({ collected: -850, fees: -fee(850, 0.07), expenses: 0, paid_out: 0 });
    expect(later.payout).toBe(sum([-850, fee(850, 0.07)]));

    // The FEC of each book passes the checker; both books balance, the owners' 512 is back to the deposits held.
    for (const owner of [helene, paul]) {
      const book = bookIdOf(as.id, owner);
      const fec = await t.request("GET", `/api/books/${book}/fec?year=2025&encoding=UTF-8`, { as });
      ok(fec, 200);
      expect(checkFec(fec.body)).toEqual([]);
      expect(fec.body).toContain("HA\tAchats\t");
      const balance = (
        await t.request("GET", `/api/books/${book}/trial-balance?on=2025-12-31`, { as })
      ).json();
      expect(balance.total_debit).toBe(balance.total_credit);
      const of = (a: string) =>
        balance.accounts.find((x: { account: string }) => x.account === a)?.balance ?? 0;
      expect(sum([of("512000"), of("165000")])).toBe(0);
      expect(of("401000")).toBe(0);
    }

    // The 2044 of each owner, line by line.
    const figures = async (owner: string) =>
      (await t.request("GET", `/api/owners/${owner}/tax-returns/2044?year=2025`, { as })).json();
    const amounts = (f: { lines: Record<string, { amount: number }> }) =>
      Object.fromEntries(Object.entries(f.lines).map(([k, v]) => [k, v.amount]));
    const h = await figures(helene);
    expect(amounts(h)).toEqual({
      "211": 800 * 6,
      "221": heleneFees,
      "222": 40,
      "223": 180,
      "224": 950,
      "225": 0,
      "227": 700,
      "229": 300,
      "230": 45,
      "250": 420,
    });
    expect(h.micro_foncier_eligible).toBe(true);
    // Line 224 links the works, the cancelled ones and their reversal.
    expect(h.lines["224"].entries).toHaveLength(3);
    const p = await figures(paul);
    expect(amounts(p)).toEqual({
      "211": sum([800, rentOfDeduction, 600 * 3, 500 * 3]),
      "221": sum([paulFees, 60]),
      "222": 60,
      "223": 150,
      "224": 0,
      "225": 35,
      "227": 0,
      "229": 0,
      "230": 0,
      "250": 0,
    });
    const pdf = await t.request("GET", `/api/owners/${helene}/tax-returns/2044?year=2025`, {
      as,
      headers: { accept: "application/pdf" },
    });
    ok(pdf, 200);
    const statementPdf = await t.request(
      "GET",
      `/api/owners/${helene}/statements?from=2025-01-01&to=2025-03-31`,
      {
        as,
        headers: { accept: "application/pdf" },
      },
    );
    ok(statementPdf, 200);
    if (process.env.BOOKS_PDF_DIR) {
      await writeFile(`${process.env.BOOKS_PDF_DIR}/2044-year.pdf`, pdf.rawPayload);
      await writeFile(`${process.env.BOOKS_PDF_DIR}/statement-year.pdf`, statementPdf.rawPayload);
      await writeFile(`${process.env.BOOKS_PDF_DIR}/payout.xml`, file.body);
    }

    // A rebuild posts the same entries, numbers and lines.
    const snapshot = () =>
      t.sql.query(
        `SELECT e.id, e.number, e.entry_date::text, e.journal, l.account, l.debit, l.credit, l.lettering
         FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id WHERE e.tenant_id = $1 ORDER BY e.id, l.line`,
        [as.id],
      );
    const posted = await snapshot();
    await rebuildProjection(t.sql, store, booksProjection);
    expect(await snapshot()).toEqual(posted);
  });
});
