import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerDecider } from "../../src/commands/bank/ledger.ts";
import { bankPaymentDecider } from "../../src/commands/bank/payments.ts";
import { settleLeftovers } from "../../src/commands/bank/settleLoop.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { bankLedgerStream } from "../../src/events/bank/index.ts";
import { leaseAccountStream, paymentReferenceOf, rentCallId } from "../../src/events/rentCycle.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { runCommand } from "../../src/platform/runCommand.ts";
import { bankProjections } from "../../src/projections/bank/index.ts";
import { rentCycleProjection } from "../../src/projections/rentCycle.ts";
import { callsToMatch } from "../../src/queries/rentCycle.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, eventCount, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Statements over HTTP (docs/bank.md): the five samples of test/fixtures/bank imported, matched
 * (reference, IBAN and amount, by hand, split), undone, set aside, imported again: no line twice,
 * and the leases' balances exact to the cent.
 */
const DUPONT_IBAN = "FR1420041010050500013M02606";
const mapping = { date: "Date", label: "Libellé", debit: "Débit", credit: "Crédit", reference: "Référence" };

describe.each(databaseKinds)("bank statements on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  const lessee = async (body: object) => {
    const res = await t.request("POST", "/api/lessees", { body: { category: "individual", ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const activeLease = async (primary_lessee_id: string) => {
    const { id } = await newLease({ primary_lessee_id, payment_day: 5 });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    return id;
  };
  const upload = (
    accountId: string,
    bytes: Buffer,
    fields: Record<string, string> = {},
    as: TestTenant = t.tenant,
  ) => {
    const { payload, type } = multipartForm(fields, {
      content: bytes,
      filename: "releve",
      type: "application/octet-stream",
    });
    return t.app.inject({
      method: "POST",
      url: `/api/bank-accounts/${accountId}/statements`,
      payload,
      headers: { "content-type": type, authorization: `Bearer ${as.key}` },
    });
  };
  const balance = async (leaseId: string) =>
    (await t.request("GET", `/api/leases/${leaseId}/account`)).json().balance;
  const call = async (leaseId: string, period: string) =>
    (await t.request("GET", `/api/leases/${leaseId}/rent-calls/${rentCallId(leaseId, period)}`)).json();
  const lines = async (accountId: string, query = "") =>
    (await t.request("GET", `/api/bank-accounts/${accountId}/lines${query}&limit=1000`)).json() as {
      id: string;
      amount: number;
      label: string;
      status: string;
      booked_on: string;
      matches: { rent_call_id: string; amount: number }[];
      proposals: { rent_call_id: string; amount: number; reason: string }[];
    }[];

  it("imports the five samples, matches, splits, undoes, sets aside, re-imports: exact balances", async () => {
    const dupont = await lessee({
      first_name: "Marie",
      last_name: "Dupont",
      email: "marie.dupont@example.fr",
      iban: DUPONT_IBAN,
    });
    const moreau = await lessee({ first_name: "Jean", last_name: "Moreau", email: "jean.moreau@example.fr" });
    const a = await activeLease(dupont);
    const b = await activeLease(moreau);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-03-15", tenantId: t.tenant.id },
    );
    const res = await t.request("POST", "/api/bank-accounts", {
      body: { label: "Loyers", iban: "FR7630006000011234567890189", csv_mapping: mapping },
    });
    expect(res.statusCode, res.body).toBe(201);
    const account = res.json().id as string;
    const refs: Record<string, string> = {
      "dupont-2025-01": paymentReferenceOf(rentCallId(a, "2025-01-01")),
      "dupont-2025-03": paymentReferenceOf(rentCallId(a, "2025-03-01")),
      "moreau-2025-01": paymentReferenceOf(rentCallId(b, "2025-01-01")),
    };
    const sample = (name: string) =>
      Buffer.from(
        readFileSync(new URL(`../fixtures/bank/${name}`, import.meta.url))
          .toString("latin1")
          .replace(/@@RF:([a-z0-9-]+)@@/g, (_, key: string) => refs[key]),
        "latin1",
      );
    const files = [
      "camt053-bnp.xml",
      "camt054-sg.xml",
      "ofx1-credit-agricole.ofx",
      "ofx2-boursorama.ofx",
      "csv-societe-generale.csv",
    ];
    const answers = [];
    for (const f of files) {
      const r = await upload(account, sample(f));
      expect(r.statusCode, r.body).toBe(201);
      expect(r.headers.location).toBe(`/api/bank-accounts/${account}/lines`);
      answers.push(r.json());
    }
    expect(answers.map(({ id: _, ...rest }) => rest)).toEqual([
      { format: "CAMT053", lines: 4, new_lines: 4, matched: 2, unmatched: 2 },
      { format: "CAMT054", lines: 2, new_lines: 1, matched: 1, unmatched: 0 },
      { format: "OFX", lines: 2, new_lines: 2, matched: 0, unmatched: 2 },
      { format: "OFX", lines: 2, new_lines: 1, matched: 1, unmatched: 0 },
      { format: "CSV", lines: 5, new_lines: 5, matched: 0, unmatched: 5 },
    ]);
    // Reference (January), IBAN and exact amount (February), reference in the label (March).
    expect(await balance(a)).toBe(0);
    expect((await call(a, "2025-02-01")).status).toBe("PAID");
    // Moreau: 450 by the reference of January's call; the rest waits.
    expect(await call(b, "2025-01-01")).toMatchObject({ paid_amount: 450, status: "OVERDUE" });
    expect(await balance(b)).toBe(2100);

    const all = await lines(account, "?status=UNMATCHED");
    const byLabel = (text: string) => all.find((l) => l.label.includes(text)) as (typeof all)[number];
    const moreauJan = byLabel("LOYER JANVIER APPT 12");
    // Proposals as of its import: every call of Moreau's then open for exactly 850.
    expect(moreauJan.proposals.map((p) => [p.rent_call_id, p.reason])).toEqual([
      [rentCallId(b, "2025-01-01"), "NAME_AMOUNT"],
      [rentCallId(b, "2025-02-01"), "NAME_AMOUNT"],
      [rentCallId(b, "2025-03-01"), "NAME_AMOUNT"],
    ]);
    const match = (id: string, matches: object[]) =>
      t.request("POST", `/api/bank-lines/${id}/match`, { body: { matches } });
    const before = await eventCount(t);
    expect(
      (await match(moreauJan.id, [{ rent_call_id: rentCallId(b, "2025-01-01"), amount: 400 }])).statusCode,
    ).toBe(400);
    expect(
      (await match(moreauJan.id, [{ rent_call_id: rentCallId(a, "2024-12-01"), amount: 850 }])).statusCode,
    ).toBe(400);
    expect(
      (await match(byLabel("FRAIS TENUE").id, [{ rent_call_id: rentCallId(b, "2025-01-01"), amount: -12.5 }]))
        .statusCode,
    ).toBe(409);
    expect(await eventCount(t)).toBe(before);
    // Split over two calls: the rest of January and most of February.
    const split = [
      { rent_call_id: rentCallId(b, "2025-01-01"), amount: 400 },
      { rent_call_id: rentCallId(b, "2025-02-01"), amount: 450 },
    ];
    const matched = await match(moreauJan.id, split);
    expect(matched.statusCode, matched.body).toBe(200);
    expect(matched.json()).toMatchObject({ status: "MATCHED", matches: split });
    expect((await match(moreauJan.id, split)).statusCode).toBe(409);
    expect((await call(b, "2025-01-01")).status).toBe("PAID");
    const partial = byLabel("LOYER MARS PARTIEL");
    expect(
      (await match(partial.id, [{ rent_call_id: rentCallId(b, "2025-02-01"), amount: 400 }])).statusCode,
    ).toBe(200);
    expect(await balance(b)).toBe(850);
    // Undo: its payments cancelled, the calls owed again; matched again: paid again, once.
    const undone = await t.request("POST", `/api/bank-lines/${moreauJan.id}/unmatch`, { body: {} });
    expect(undone.statusCode, undone.body).toBe(200);
    expect(undone.json()).toMatchObject({ status: "UNMATCHED", matches: [] });
    expect(await balance(b)).toBe(1700);
    expect(
      (await t.request("POST", `/api/bank-lines/${moreauJan.id}/unmatch`, { body: {} })).statusCode,
    ).toBe(409);
    expect((await match(moreauJan.id, split)).statusCode).toBe(200);
    expect(
      (
        await match(byLabel("M JEAN MOREAU LOYER MARS").id, [
          { rent_call_id: rentCallId(b, "2025-03-01"), amount: 850 },
        ])
      ).statusCode,
    ).toBe(200);
    expect(await balance(b)).toBe(0);
    // Set aside: bank fees; a matched line cannot be.
    const ignored = await t.request("POST", `/api/bank-lines/${byLabel("FRAIS TENUE").id}/ignore`);
    expect(ignored.json().status).toBe("IGNORED");
    expect((await t.request("POST", `/api/bank-lines/${moreauJan.id}/ignore`)).statusCode).toBe(409);

    // The same files again: no line twice, nothing paid twice.
    for (const f of files) {
      const again = await upload(account, sample(f));
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json()).toMatchObject({ new_lines: 0, matched: 0, unmatched: 0 });
    }
    expect(await balance(a)).toBe(0);
    expect(await balance(b)).toBe(0);
    const every = await lines(account, "?page=1");
    expect(every).toHaveLength(13);
    expect((await lines(account, "?status=UNMATCHED")).map((l) => l.amount).sort()).toEqual(
      [-35, -8, -8, 1234.56, 12.34].sort(),
    );
    // Payments from the bank equal the matched credits, to the cent.
    const matchedCredits = every
      .filter((l) => l.status === "MATCHED")
      .reduce((s, l) => s + Math.round(l.amount * 100), 0);
    const [{ paid }] = await t.sql.query(
      `SELECT (sum(amount) * 100)::int AS paid FROM lease_payments WHERE tenant_id = $1 AND status = 'RECORDED'`,
      [t.tenant.id],
    );
    expect(paid).toBe(matchedCredits);
    expect(matchedCredits).toBe(510000);

    // A return (camt.054, AC04) of February's transfer: its payment cancelled, the call due again, no fee.
    const returned = await upload(account, sample("camt054-return-ac04.xml"));
    expect(returned.json()).toMatchObject({
      format: "CAMT054",
      lines: 1,
      new_lines: 1,
      matched: 1,
      unmatched: 0,
    });
    expect(await balance(a)).toBe(850);
    expect((await call(a, "2025-02-01")).paid_amount).toBe(0);
    const [{ reason }] = await t.sql.query(
      `SELECT cancel_reason AS reason FROM lease_payments WHERE tenant_id = $1 AND lease_id = $2 AND status = 'CANCELLED'`,
      [t.tenant.id, a],
    );
    expect(reason).toBe("Bank return AC04");
    expect((await upload(account, sample("camt054-return-ac04.xml"))).json()).toMatchObject({ new_lines: 0 });
    expect(await balance(a)).toBe(850);

    // Replaying the log gives the same lines and the same accounts, to the cent.
    const views = () =>
      Promise.all(
        [
          `/api/bank-accounts/${account}/lines?limit=1000`,
          `/api/leases/${a}/account`,
          `/api/leases/${b}/account`,
        ].map(async (url) => (await t.request("GET", url)).json()),
      );
    const live = await views();
    for (const projection of [...bankProjections, rentCycleProjection])
      await rebuildProjection(t.sql, t.service.platform.store, projection);
    expect(await views()).toEqual(live);

    // Another tenant sees none of it.
    expect((await t.request("GET", `/api/bank-accounts/${account}/lines`, { as: t.other })).statusCode).toBe(
      404,
    );
    expect(
      (await t.request("POST", `/api/bank-lines/${moreauJan.id}/ignore`, { as: t.other })).statusCode,
    ).toBe(404);
    expect((await upload(account, sample(files[0]), {}, t.other)).statusCode).toBe(404);
  });

  it("refuses a broken file, an unknown format field and a CSV without mapping with 400, writing nothing", async () => {
    const res = await t.request("POST", "/api/bank-accounts", {
      body: { label: "Sans mapping", iban: DUPONT_IBAN },
    });
    const account = res.json().id;
    const before = await eventCount(t);
    const bad = [
      await upload(account, Buffer.from("<Document><BkToCstmrStmt>")),
      await upload(account, Buffer.from("Date;Libellé\n01/01/2025;x\n")),
      await upload(account, Buffer.from("x"), { format: "MT940" }),
    ];
    for (const r of bad) {
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error).toBe("ValidationError");
    }
    expect(bad[2].json().details[0].field).toBe("format");
    expect(await eventCount(t)).toBe(before);
  });

  it("a match the ledger recorded but a stopped process did not settle is paid by the settlement loop, once", async () => {
    const payer = await lessee({ first_name: "Léa", last_name: "Garnier", email: "lea.garnier@example.fr" });
    const lease = await activeLease(payer);
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today: "2025-01-15", tenantId: t.tenant.id });
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "Reprise", iban: "FR7630006000011234567890189" },
      })
    ).json().id as string;
    const call = rentCallId(lease, "2025-01-01");
    // The ledger's append alone, as a process stopped right after it would leave it.
    const metadata = {
      tenant_id: t.tenant.id,
      actor_key_id: null,
      correlation_id: "crash",
      causation_id: null,
      occurred_at: new Date().toISOString(),
    };
    const written = await runCommand(
      { store: deps.store, tenant_id: t.tenant.id, metadata },
      bankLedgerStream(account),
      ledgerDecider,
      {
        type: "ImportStatement",
        bank_account_id: account,
        statement_id: "00000000-0000-4000-8000-00000000c4a5",
        format: "CAMT053",
        lines: [
          {
            booked_on: "2025-01-06",
            amount: 850,
            label: "VIR",
            counterparty_name: null,
            counterparty_iban: null,
            reference: paymentReferenceOf(call),
            entry_ref: "CRASH1",
            return_reason: null,
          },
        ],
        calls: await callsToMatch(t.sql, t.tenant.id),
      },
    );
    await t.service.platform.projections.waitFor(written.position as never);
    expect(await balance(lease)).toBe(850);
    expect(await settleLeftovers(deps, 0)).toBe(1);
    await eventually(
      async () => balance(lease),
      (b) => b === 0,
    );
    expect(await settleLeftovers(deps, 0)).toBe(0);
    expect(await balance(lease)).toBe(0);
  });

  it("a lease account moved between the bulk read and the bulk write: nothing written, then account by account, each line once", async () => {
    const [a, b] = [
      await activeLease(
        await lessee({ first_name: "Paul", last_name: "Morel", email: "paul.morel@example.fr" }),
      ),
      await activeLease(
        await lessee({ first_name: "Inès", last_name: "Roux", email: "ines.roux@example.fr" }),
      ),
    ];
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today: "2025-01-15", tenantId: t.tenant.id });
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "Conflit", iban: "FR7630006000011234567890189" },
      })
    ).json().id as string;
    const store = t.service.platform.store;
    const bulk = store.appendToStreams?.bind(store);
    expect(bulk).toBeDefined();
    let writes = 0;
    // Another writer records a payment on lease a's account after the settlement read it.
    store.appendToStreams = async (w) => {
      writes++;
      if (writes === 1) {
        const metadata = {
          tenant_id: t.tenant.id,
          actor_key_id: null,
          correlation_id: "concurrent",
          causation_id: null,
          occurred_at: new Date().toISOString(),
        };
        await runCommand(
          { store, tenant_id: t.tenant.id, metadata },
          leaseAccountStream(a),
          bankPaymentDecider,
          {
            type: "RecordLinePayments",
            lease_id: a,
            payments: [
              {
                payment_id: "00000000-0000-4000-8000-00000000c0f1",
                rent_call_id: rentCallId(a, "2025-01-01"),
                amount: 100,
                paid_on: "2025-01-06",
                bank_account_id: account,
                bank_line_id: "00000000-0000-4000-8000-00000000c0f2",
              },
            ],
          },
        );
      }
      return (bulk as NonNullable<typeof bulk>)(w);
    };
    const credit = (
      lease: string,
      ref: string,
    ) => `<Ntry><Amt Ccy="EUR">850.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2025-01-06</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef>
<NtryDtls><TxDtls><RmtInf><Strd><CdtrRefInf><Ref>${paymentReferenceOf(rentCallId(lease, "2025-01-01"))}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    const file = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>CONFLIT</MsgId><CreDtTm>2025-01-07T06:00:00</CreDtTm></GrpHdr>
<Stmt><Id>CONFLIT-1</Id><CreDtTm>2025-01-07T06:00:00</CreDtTm><Acct><Id><IBAN>FR7630006000011234567890189</IBAN></Id></Acct>
${credit(a, "CONFLIT-A")}
${credit(b, "CONFLIT-B")}
</Stmt></BkToCstmrStmt></Document>`;
    try {
      const res = await upload(account, Buffer.from(file));
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ new_lines: 2, matched: 2 });
      // The bulk write was refused whole (a's revision moved): b was written by the fallback.
      expect(writes).toBe(1);
      expect(await balance(a)).toBe(-100);
      expect(await balance(b)).toBe(0);
      const again = await upload(account, Buffer.from(file));
      expect(again.json()).toMatchObject({ new_lines: 0, matched: 0 });
      expect(await balance(a)).toBe(-100);
      expect(await balance(b)).toBe(0);
    } finally {
      store.appendToStreams = bulk;
    }
  });
});
