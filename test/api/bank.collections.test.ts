import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionDecider } from "../../src/commands/bank/collectionDecider.ts";
import { settleCollectionLeftovers } from "../../src/commands/bank/settleLoop.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { sepaCollectionsStream } from "../../src/events/bank/collections.ts";
import { rentCallId } from "../../src/events/rentCycle.ts";
import { legalToday } from "../../src/law/calendar.ts";
import { runCommand } from "../../src/platform/runCommand.ts";
import { collectionCandidates } from "../../src/queries/bank/collections.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * SEPA collections over HTTP (docs/bank.md, "SEPA collections"): a batch of every open call paid
 * by an active mandate, its pain.008.001.08 file validated by xmllint against the official XSD, a
 * French bank's pain.002 rejecting two debits: their payments reversed, the calls due again, no fee;
 * the next batch collects them again as RCUR.
 */
const XSD = "test/fixtures/bank/xsd";
const validates = (xml: string, schema: string) => {
  const run = spawnSync("xmllint", ["--noout", "--schema", `${XSD}/${schema}`, "-"], { input: xml });
  return `${run.status} ${run.stderr.toString()}`;
};
const IBANS = ["DE89370400440532013000", "FR1420041010050500013M02606", "FR7630006000011234567890189"];

describe.each(databaseKinds)("SEPA collections on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
    // No avis emailed here: a call counts as pre-notified when issued (test/api/bank.prenotification.test.ts).
    const configuration = (await t.request("GET", "/api/configurations")).json();
    const saved = await t.request("PUT", "/api/configurations", {
      body: { ...configuration, rent_messages: { avis: false, avis_days_before: 10, quittance: true } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);
  const lease = async (payment_method: string) => {
    const made = await newLease({ payment_day: 5, payment_method });
    expect((await setStatus(made.id, "ACTIVE")).statusCode).toBe(200);
    return made;
  };
  const sign = async (leaseId: string, lessee_id: string, iban: string) => {
    const res = await t.request("POST", `/api/leases/${leaseId}/sepa-mandates`, {
      body: { lessee_id, iban, signed_on: "2024-12-20" },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const collect = (accountId: string, due_on: string) =>
    t.request("POST", `/api/bank-accounts/${accountId}/sepa-collections`, { body: { due_on } });
  const file = async (id: string) => {
    const res = await t.request("GET", `/api/sepa-collections/${id}/file`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/xml/);
    return res.body;
  };
  const report = (id: string, xml: string) => {
    const { payload, type } = multipartForm(
      {},
      { content: Buffer.from(xml), filename: "pain002.xml", type: "application/xml" },
    );
    return t.app.inject({
      method: "POST",
      url: `/api/sepa-collections/${id}/status-reports`,
      payload,
      headers: { "content-type": type, authorization: `Bearer ${t.tenant.key}` },
    });
  };
  const statement = (accountId: string, xml: string) => {
    const { payload, type } = multipartForm(
      {},
      { content: Buffer.from(xml), filename: "camt054.xml", type: "application/xml" },
    );
    return t.app.inject({
      method: "POST",
      url: `/api/bank-accounts/${accountId}/statements`,
      payload,
      headers: { "content-type": type, authorization: `Bearer ${t.tenant.key}` },
    });
  };
  const call = async (leaseId: string) =>
    (await t.request("GET", `/api/leases/${leaseId}/rent-calls/${rentCallId(leaseId, "2025-01-01")}`)).json();
  const balance = async (leaseId: string) =>
    (await t.request("GET", `/api/leases/${leaseId}/account`)).json().balance;

  it("collects every open call once, FRST then RCUR; a pain.002 reverses exactly the rejected debits", async () => {
    const debited = [];
    for (const iban of IBANS) {
      const l = await lease("PRELEVEMENT_AUTOMATIQUE");
      debited.push({ ...l, mandate: await sign(l.id, l.primary_lessee_id, iban) });
    }
    // Paid by transfer, or by direct debit with a revoked mandate: not collected.
    const transfer = await lease("VIREMENT_BANCAIRE");
    await sign(transfer.id, transfer.primary_lessee_id, IBANS[0]);
    const revoked = await lease("PRELEVEMENT_AUTOMATIQUE");
    const gone = await sign(revoked.id, revoked.primary_lessee_id, IBANS[1]);
    expect(
      (await t.request("POST", `/api/leases/${revoked.id}/sepa-mandates/${gone.id}/revoke`)).statusCode,
    ).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: t.tenant.id },
    );
    const noIcs = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "Sans ICS", iban: "FR7630006000011234567890189" },
      })
    ).json().id;
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: {
          label: "SCI Les Tilleuls",
          iban: "FR7630006000011234567890189",
          bic: "BNPAFRPPXXX",
          creditor_id: "FR72ZZZ123456",
        },
      })
    ).json().id;

    const before = await eventCount(t);
    expect((await collect(noIcs, "2027-01-05")).statusCode).toBe(409);
    const tooSoon = await collect(account, "2020-01-06");
    expect(tooSoon.statusCode).toBe(400);
    expect(tooSoon.json().details[0].field).toBe("due_on");
    expect((await collect("5b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a0ff", "2027-01-05")).statusCode).toBe(404);
    expect(await eventCount(t)).toBe(before);

    const res = await collect(account, "2027-01-05");
    expect(res.statusCode, res.body).toBe(201);
    const batch = res.json();
    expect(batch.due_on).toBe("2027-01-05");
    expect(batch.total).toBe(2550);
    expect(batch.rejected_total).toBe(0);
    const byLease = new Map(batch.transactions.map((x: { lease_id: string }) => [x.lease_id, x]));
    expect([...byLease.keys()].sort()).toEqual(debited.map((d) => d.id).sort());
    for (const d of debited) {
      expect(byLease.get(d.id)).toMatchObject({
        rent_call_id: rentCallId(d.id, "2025-01-01"),
        mandate_id: d.mandate.id,
        rum: d.mandate.rum,
        sequence: "FRST",
        amount: 850,
        status: "COLLECTING",
      });
      expect((await call(d.id)).status).toBe("PAID");
      expect(await balance(d.id)).toBe(0);
      const [mandate] = (await t.request("GET", `/api/leases/${d.id}/sepa-mandates`)).json();
      expect(mandate.sequence).toBe("RCUR");
    }
    expect((await call(transfer.id)).status).not.toBe("PAID");
    expect((await call(revoked.id)).status).not.toBe("PAID");
    expect((await t.request("GET", `/api/sepa-collections/${batch.id}`)).json()).toEqual(batch);

    const xml = await file(batch.id);
    expect(validates(xml, "pain.008.001.08.xsd")).toMatch(/^0 .*validates/);
    expect(xml).toContain(`<MsgId>${batch.message_id}</MsgId>`);
    expect(xml.match(/<PmtInf>/g)).toHaveLength(1);
    expect(xml).toContain("<SeqTp>FRST</SeqTp>");
    expect(xml.match(/<CtrlSum>2550\.00<\/CtrlSum>/g)).toHaveLength(2);
    expect(xml).toContain("<Id>FR72ZZZ123456</Id>");
    expect(xml).toContain("<ReqdColltnDt>2027-01-05</ReqdColltnDt>");
    expect(xml).toContain(
      `<MndtId>${debited[0].mandate.rum}</MndtId><DtOfSgntr>2024-12-20</DtOfSgntr>`.replace(
        "><",
        ">\n            <",
      ),
    );
    expect(xml).toContain(`<IBAN>${IBANS[1]}</IBAN>`);
    expect(xml).toContain('<InstdAmt Ccy="EUR">850.00</InstdAmt>');

    // Never twice: the same date is the same batch, a later one finds nothing left.
    const again = await eventCount(t);
    expect((await collect(account, "2027-01-05")).statusCode).toBe(409);
    expect((await collect(account, "2027-01-06")).statusCode).toBe(409);
    expect(await eventCount(t)).toBe(again);

    // The bank rejects the debits of the second and third leases (AC04, AM04).
    const [, second, third] = debited;
    const e2e = (leaseId: string) => (byLease.get(leaseId) as { end_to_end_id: string }).end_to_end_id;
    const pain002 = readFileSync("test/fixtures/bank/pain002-rejects-bnp.xml", "utf8")
      .replaceAll("@@MSGID@@", batch.message_id)
      .replaceAll("@@PMTINF@@", `${batch.message_id.slice(0, 30)}-FRST`)
      .replaceAll("@@E2E:1@@", e2e(second.id))
      .replaceAll("@@E2E:2@@", e2e(third.id))
      .replaceAll("@@DUE@@", "2027-01-05");
    expect(validates(pain002, "pain.002.001.10.xsd")).toMatch(/^0 .*validates/);
    const other = await report(batch.id, pain002.replace(batch.message_id, "AUTREMESSAGE"));
    expect(other.statusCode).toBe(400);
    expect(other.json().details[0].field).toBe("file");
    expect((await report(batch.id, "<pas du xml")).statusCode).toBe(400);
    const rejected = await report(batch.id, pain002);
    expect(rejected.statusCode, rejected.body).toBe(200);
    const after = rejected.json();
    expect(after.rejected_total).toBe(1700);
    expect(
      after.transactions.map((x: { lease_id: string; status: string; reason_code: string | null }) => [
        x.lease_id,
        x.status,
        x.reason_code,
      ]),
    ).toEqual(
      batch.transactions.map((x: { lease_id: string }) =>
        x.lease_id === second.id
          ? [x.lease_id, "REJECTED", "AC04"]
          : x.lease_id === third.id
            ? [x.lease_id, "REJECTED", "AM04"]
            : [x.lease_id, "COLLECTING", null],
      ),
    );
    // The calls are due again with exactly what they were: no fee (loi n° 89-462 art. 4 p).
    for (const d of [second, third]) {
      const c = await call(d.id);
      expect(c.status).not.toBe("PAID");
      expect(c.total_amount).toBe(850);
      expect(await balance(d.id)).toBe(850);
    }
    expect((await call(debited[0].id)).status).toBe("PAID");
    const payments = (await t.request("GET", `/api/leases/${second.id}/payments`)).json();
    expect(JSON.stringify(payments)).toContain("Bank return AC04");
    // The same report again reverses nothing more.
    const once = await eventCount(t);
    expect((await report(batch.id, pain002)).statusCode).toBe(200);
    expect(await eventCount(t)).toBe(once);

    // The next batch collects again the call rejected for insufficient funds (AM04), now RCUR; not
    // the one whose account is closed (AC04): it would fail again with that mandate.
    const next = await collect(account, "2027-01-08");
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json()).toMatchObject({ total: 850 });
    expect(
      next.json().transactions.map((x: { lease_id: string; sequence: string }) => [x.lease_id, x.sequence]),
    ).toEqual([[third.id, "RCUR"]]);
    const rcur = await file(next.json().id);
    expect(validates(rcur, "pain.008.001.08.xsd")).toMatch(/^0 .*validates/);
    expect(rcur).toContain("<SeqTp>RCUR</SeqTp>");
    expect(await balance(third.id)).toBe(0);
    expect(await balance(second.id)).toBe(850);

    // Five weeks later the first tenant asks their bank for a refund (MD06, within 8 weeks): it
    // comes as an R-transaction in the camt.054 and reverses that debit's payment, once.
    const [first] = debited;
    const refund = readFileSync("test/fixtures/bank/camt054-sdd-refund-md06.xml", "utf8")
      .replace("@@E2E@@", e2e(first.id))
      .replace("@@RUM@@", first.mandate.rum);
    const imported = await statement(account, refund);
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json()).toMatchObject({ new_lines: 1, matched: 1, unmatched: 0 });
    expect(await balance(first.id)).toBe(850);
    expect((await call(first.id)).status).not.toBe("PAID");
    const refunded = (await t.request("GET", `/api/sepa-collections/${batch.id}`)).json();
    expect(refunded.transactions.find((x: { lease_id: string }) => x.lease_id === first.id)).toMatchObject({
      status: "REJECTED",
      reason_code: "MD06",
    });
    expect(refunded.rejected_total).toBe(2550);
    const [line] = (await t.request("GET", `/api/bank-accounts/${account}/lines?status=MATCHED`)).json();
    expect(line).toMatchObject({ amount: -850, return_reason: "MD06" });
    expect((await t.request("POST", `/api/bank-lines/${line.id}/unmatch`, { body: {} })).statusCode).toBe(
      409,
    );
    const settled = await eventCount(t);
    expect((await statement(account, refund)).json()).toMatchObject({ new_lines: 0 });
    expect(await eventCount(t)).toBe(settled + 1);
    expect(await balance(first.id)).toBe(850);
  });

  it("a batch a stopped process did not settle is settled by the worker loop, once", async () => {
    const d = await lease("PRELEVEMENT_AUTOMATIQUE");
    const mandate = await sign(d.id, d.primary_lessee_id, IBANS[2]);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: t.tenant.id },
    );
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "SCI Crash", iban: "FR7630006000011234567890189", creditor_id: "FR72ZZZ123456" },
      })
    ).json().id;
    const deps = { sql: t.sql, store: t.service.platform.store };
    const today = legalToday();
    // The batch's event written, then the process stops before the payments and the mandate's use.
    const written = await runCommand(
      {
        store: deps.store,
        tenant_id: t.tenant.id,
        metadata: {
          tenant_id: t.tenant.id,
          actor_key_id: null,
          correlation_id: "crash",
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      },
      sepaCollectionsStream(account),
      collectionDecider,
      {
        type: "CreateCollection",
        collection_id: "00000000-0000-4000-8000-00000000c0c1",
        bank_account_id: account,
        due_on: "2027-02-05",
        today,
        now: new Date().toISOString(),
        creditor: {
          name: "SCI Crash",
          iban: "FR7630006000011234567890189",
          bic: null,
          creditor_id: "FR72ZZZ123456",
        },
        candidates: (await collectionCandidates(t.sql, t.tenant.id, "2027-02-05", today)).filter(
          (c) => c.lease_id === d.id,
        ),
      },
    );
    expect(written.events).toHaveLength(1);
    await t.service.platform.projections.waitFor(written.position as never);
    expect(await balance(d.id)).toBe(850);
    expect(await settleCollectionLeftovers(deps, 0)).toBeGreaterThan(0);
    await eventually(
      async () => balance(d.id),
      (b) => b === 0,
    );
    await eventually(
      async () => (await t.request("GET", `/api/leases/${d.id}/sepa-mandates`)).json()[0].sequence,
      (s) => s === "RCUR",
    );
    expect((await t.request("GET", `/api/leases/${d.id}/sepa-mandates`)).json()[0].id).toBe(mandate.id);
    const settled = await eventCount(t);
    expect(await settleCollectionLeftovers(deps, 0)).toBe(0);
    expect(await eventCount(t)).toBe(settled);
  });
});
