import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { bookIdOf } from "../../src/events/books/index.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { booksProjection } from "../../src/projections/books/index.ts";
import { checkFec } from "../../src/queries/books/index.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/** The books over HTTP (docs/accounting.md): entries posted from the money events, trial balance, FEC, closing. */
describe("books", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  it("posts calls, payments and the deposit; the trial balance, the FEC and a rebuild agree to the cent", async () => {
    const { id } = await newLease({ payment_day: 5 });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-02-15", tenantId: t.tenant.id },
    );
    const paid = await t.request("POST", `/api/leases/${id}/payments`, {
      body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-02-10", amount: 1000.25 },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const book = bookIdOf(t.tenant.id, null);
    // Deposit 800, two calls of 850 (January, February), a payment of 1,000.25.
    const entries = await eventually(
      async () => (await t.request("GET", `/api/books/${book}/entries`)).json(),
      (body) => Array.isArray(body) && body.length === 4,
    );
    expect(entries.map((e: { journal: string; label: string }) => [e.journal, e.label])).toEqual([
      ["BQ", "Dépôt de garantie reçu"],
      ["VT", "Appel de loyer janvier 2025"],
      ["VT", "Appel de loyer février 2025"],
      ["BQ", "Règlement du locataire"],
    ]);
    // The January call is paid in full: its lines are lettered together; February's is not.
    const january = entries[1].lines[0];
    expect(january).toMatchObject({
      account: "411000",
      debit: 850,
      lettering: "A",
      lettered_on: "2025-02-10",
    });
    expect(entries[2].lines[0].lettering).toBeNull();
    expect(
      entries[3].lines.map((l: { account: string; credit: number; debit: number }) => [
        l.account,
        l.debit,
        l.credit,
      ]),
    ).toEqual([
      ["512000", 1000.25, 0],
      ["411000", 0, 850],
      ["411000", 0, 150.25],
    ]);

    const balance = (await t.request("GET", `/api/books/${book}/trial-balance?on=2025-12-31`)).json();
    expect(balance.total_debit).toBe(balance.total_credit);
    const of = (account: string) =>
      balance.accounts.find((a: { account: string }) => a.account === account)?.balance;
    expect(of("411000")).toBe(699.75); // 1,700 called - 1,000.25 paid: the lease account's balance
    expect(of("512000")).toBe(1800.25);
    expect(of("165000")).toBe(-800);
    expect(of("706000")).toBe(-1600);
    const account = (await t.request("GET", `/api/leases/${id}/account`)).json();
    expect(account.balance).toBe(of("411000"));

    const csv = await t.request("GET", `/api/books/${book}/exports/trial-balance.csv?on=2025-12-31`);
    expect(csv.headers["content-type"]).toMatch(/text\/csv/);
    expect(csv.body.startsWith("\uFEFFCompte;Intitulé;")).toBe(true);
    expect(csv.body).toContain("512000;Banque;;1800,25;0,00;1800,25");

    const fec = await t.request("GET", `/api/books/${book}/fec?year=2025&siren=123456789&encoding=UTF-8`);
    expect(fec.statusCode).toBe(200);
    expect(fec.headers["content-disposition"]).toContain('filename="123456789FEC20251231.txt"');
    expect(checkFec(fec.body)).toEqual([]);
    expect(fec.body.split("\r\n")).toHaveLength(1 + 2 + 3 + 3 + 3 + 1);
    const latin = await t.request("GET", `/api/books/${book}/fec?year=2025`);
    expect(latin.rawPayload.includes(Buffer.from("Dépôt", "latin1"))).toBe(true);

    // Another tenant does not see the book.
    expect((await t.request("GET", `/api/books/${book}`, { as: t.other })).statusCode).toBe(404);

    const before = await t.sql.query(
      "SELECT id, number, entry_date::text, journal FROM ledger_entries WHERE book_id = $1 ORDER BY id",
      [book],
    );
    const lines = await t.sql.query(
      "SELECT id, debit, credit, lettering FROM ledger_lines WHERE book_id = $1 ORDER BY id",
      [book],
    );
    await rebuildProjection(t.sql, t.service.platform.store, booksProjection);
    expect(
      await t.sql.query(
        "SELECT id, number, entry_date::text, journal FROM ledger_entries WHERE book_id = $1 ORDER BY id",
        [book],
      ),
    ).toEqual(before);
    expect(
      await t.sql.query(
        "SELECT id, debit, credit, lettering FROM ledger_lines WHERE book_id = $1 ORDER BY id",
        [book],
      ),
    ).toEqual(lines);
  }, 120_000);

  it("a closed year carries its balances forward and takes no new entry", async () => {
    const other = await t.newTenant();
    const { id } = await newLease({ payment_day: 5 }, other);
    expect((await setStatus(id, "ACTIVE", {}, other)).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: other.id },
    );
    const book = bookIdOf(other.id, null);
    await eventually(
      async () => (await t.request("GET", `/api/books/${book}/entries`, { as: other })).json(),
      (body) => Array.isArray(body) && body.length === 2,
    );
    const closed = await t.request("POST", `/api/books/${book}/periods/2025/close`, { as: other });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json()).toMatchObject({ closed_through: 2025, entries: 3 });
    expect((await t.request("POST", `/api/books/${book}/periods/2025/close`, { as: other })).statusCode).toBe(
      409,
    );
    // A payment dated in 2025 after the closing is posted on the first day of 2026.
    await t.request("POST", `/api/leases/${id}/payments`, {
      body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-01-10", amount: 850 },
      as: other,
    });
    const y2026 = await eventually(
      async () =>
        (await t.request("GET", `/api/books/${book}/entries?from=2026-01-01`, { as: other })).json(),
      (body) => Array.isArray(body) && body.length === 2,
    );
    expect(
      y2026.map((e: { journal: string; entry_date: string; number: number }) => [
        e.journal,
        e.entry_date,
        e.number,
      ]),
    ).toEqual([
      ["AN", "2026-01-01", 1],
      ["BQ", "2026-01-01", 2],
    ]);
    // The call open at the closing letters in 2026 with its payment, through its "à nouveaux" line.
    const anTenant = y2026[0].lines[1];
    const paidTenant = y2026[1].lines[1];
    expect(anTenant.lettering).not.toBeNull();
    expect(paidTenant).toMatchObject({ account: "411000", lettering: anTenant.lettering });
    const fec = await t.request("GET", `/api/books/${book}/fec?year=2026&encoding=UTF-8`, { as: other });
    expect(checkFec(fec.body)).toEqual([]);
    // The à nouveaux carry the deposit, the tenant's 850 and the bank's 800; the year's result (850 of rent) to 120.
    expect(fec.body).toContain("AN\tÀ nouveaux\t1\t20260101\t165000");
    expect(fec.body).toMatch(
      /\t120000\tRésultat de l'exercice \(bénéfice\)\t\t\tAN2026\t20251231\t[^\t]+\t0,00\t850,00\t/,
    );
  });

  it("an owner's mandate: the agency's fee on each payment, the compte-rendu de gérance and the 2044 figures", async () => {
    const tenant = await t.newTenant();
    const as = tenant;
    const owner = await t.request("POST", "/api/owners", {
      body: { category: "individual", first_name: "Hélène", last_name: "Moreau", email: "helene@example.fr" },
      as,
    });
    expect(owner.statusCode, owner.body).toBe(201);
    const ownerId = owner.json().id as string;
    const place = (
      await t.request("POST", "/api/places", { body: { name: "Résidence des Tilleuls" }, as })
    ).json().id;
    const estateOf = async (name: string) => {
      const res = await t.request("POST", `/api/places/${place}/estates`, {
        body: {
          name,
          estate_type_id: globalTypeIds.estate.apartment,
          area: 40,
          fiscal_identifier: name,
          owner_id: ownerId,
        },
        as,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const bad = await t.request("POST", `/api/owners/${ownerId}/management-mandates`, {
      body: { fee_rate: 0.07123, starts_on: "2025-01-01" },
      as,
    });
    expect(bad.statusCode).toBe(400);
    const mandate = await t.request("POST", `/api/owners/${ownerId}/management-mandates`, {
      body: { fee_rate: 0.07, starts_on: "2025-01-01" },
      as,
    });
    expect(mandate.statusCode, mandate.body).toBe(201);
    expect(mandate.json()).toMatchObject({ fee_rate: 0.07, vat_rate: 0.2, ends_on: null });
    const again = await t.request("POST", `/api/owners/${ownerId}/management-mandates`, {
      body: { fee_rate: 0.05, starts_on: "2025-06-01" },
      as,
    });
    expect(again.statusCode).toBe(409);

    // Two dwellings of the owner, 800 + 50 a month from January 2025; each paid 850 for January.
    const leases: string[] = [];
    for (const name of ["Apt A", "Apt B"]) {
      const { id } = await newLease({ estate_id: await estateOf(name), payment_day: 5 }, as);
      expect((await setStatus(id, "ACTIVE", {}, as)).statusCode).toBe(200);
      leases.push(id);
    }
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: tenant.id },
    );
    for (const id of leases) {
      const paid = await t.request("POST", `/api/leases/${id}/payments`, {
        body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-01-08", amount: 850 },
        as,
      });
      expect(paid.statusCode, paid.body).toBe(201);
    }
    const book = bookIdOf(tenant.id, ownerId);
    await eventually(
      async () => (await t.request("GET", `/api/books/${book}/entries`, { as })).json(),
      (body) => Array.isArray(body) && body.length === 6,
    );
    // 7 % of 850 = 59.50, VAT 20 % = 71.40 kept by the agency on each payment.
    const statement = (
      await t.request("GET", `/api/owners/${ownerId}/statements?from=2025-01-01&to=2025-01-31`, { as })
    ).json();
    expect(statement).toMatchObject({
      collected: 1700,
      rents: 1600,
      charges: 100,
      fees: 142.8,
      expenses: 0,
      payout: 1557.2,
    });
    expect(statement.payout).toBe(statement.collected - statement.fees - statement.expenses);

    const figures = (
      await t.request("GET", `/api/owners/${ownerId}/tax-returns/2044?year=2025`, { as })
    ).json();
    expect(figures.lines["211"]).toMatchObject({ amount: 1600 });
    expect(figures.lines["211"].entries).toHaveLength(2);
    expect(figures.lines["221"].amount).toBe(142.8);
    expect(figures.lines["222"].amount).toBe(40);
    expect(figures.lines["229"].amount).toBe(0);
    expect(figures.micro_foncier_eligible).toBe(true);

    const pdf = await t.request("GET", `/api/owners/${ownerId}/tax-returns/2044?year=2025`, {
      as,
      headers: { accept: "application/pdf" },
    });
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    const statementPdf = await t.request(
      "GET",
      `/api/owners/${ownerId}/statements?from=2025-01-01&to=2025-01-31`,
      {
        as,
        headers: { accept: "application/pdf" },
      },
    );
    expect(statementPdf.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
    const { pdfText } = await import("../support/pdfText.ts");
    const text = await pdfText(statementPdf.rawPayload);
    expect(text).toContain("Hélène Moreau");
    expect(text).toContain("Période du 1er janvier 2025 au 31 janvier 2025");
    expect(text).toContain("1 557,20 €");
    const taxText = await pdfText(pdf.rawPayload);
    expect(taxText).toContain("Loyers bruts encaissés");
    expect(taxText).toContain("15 000,00 €");
    expect(taxText).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    if (process.env.BOOKS_PDF_DIR) {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(`${process.env.BOOKS_PDF_DIR}/statement.pdf`, statementPdf.rawPayload);
      await writeFile(`${process.env.BOOKS_PDF_DIR}/2044.pdf`, pdf.rawPayload);
    }
    // Another tenant sees none of it.
    expect(
      (await t.request("GET", `/api/owners/${ownerId}/statements?from=2025-01-01&to=2025-01-31`)).statusCode,
    ).toBe(404);
  });
});
