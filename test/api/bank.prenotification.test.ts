import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionDecider } from "../../src/commands/bank/collectionDecider.ts";
import { settleCollectionLeftovers } from "../../src/commands/bank/settleLoop.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { sepaCollectionsStream } from "../../src/events/bank/collections.ts";
import { addDays, legalToday } from "../../src/law/calendar.ts";
import { longDate } from "../../src/platform/pdf/renderTemplate.ts";
import { runCommand } from "../../src/platform/runCommand.ts";
import { avisMessageId } from "../../src/queries/rentNotice.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { pdfText } from "../support/pdfText.ts";
import {
  decodedText,
  type ReceivedMail,
  startSmtpServer,
  type TestSmtpServer,
} from "../support/smtpServer.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/**
 * SEPA pre-notification through the whole service (docs/bank.md, "Pre-notification"): the avis of a
 * lease paid by direct debit states the debit, the ICS and the RUM; a batch takes a call only when
 * its avis reached the tenant (emailed and delivered by a real SMTP server, or issued when the avis
 * emails are off) 14 calendar days before the debit.
 */
describe("SEPA pre-notification", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      "postgres",
      { SMTP_URL: smtp.url, SMTP_FROM: "Gestion <gestion@example.fr>", PMS_OUTBOX_POLL_MS: "50" },
      { loops: true },
    );
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);
  const until = async <T>(what: string, check: () => T | null | undefined | false | Promise<T | false>) => {
    for (let i = 0; i < 600; i++) {
      const found = await check();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not within 30 s: ${what}`);
  };
  const collect = (accountId: string, due_on: string) =>
    t.request("POST", `/api/bank-accounts/${accountId}/sepa-collections`, { body: { due_on } });

  it("the avis states the debit; a batch takes the call 14 days after its delivery, not 13", {
    timeout: 120_000,
  }, async () => {
    const today = legalToday();
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: {
          label: "SCI Les Tilleuls",
          iban: "FR7630006000011234567890189",
          creditor_id: "FR72ZZZ123456",
        },
      })
    ).json().id;
    const day = Math.min(Number(today.slice(8, 10)), 28);
    const { id, primary_lessee_id: lessee } = await newLease({
      start_date: `${today.slice(0, 8)}01`,
      payment_day: day,
      rent_amount: 700,
      charges_amount: 40,
      deposit_amount: 700,
      payment_method: "PRELEVEMENT_AUTOMATIQUE",
    });
    const mandate = await t.request("POST", `/api/leases/${id}/sepa-mandates`, {
      body: { lessee_id: lessee, iban: "FR1420041010050500013M02606", signed_on: today },
    });
    expect(mandate.statusCode, mandate.body).toBe(201);
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls({ sql: t.sql, store: t.service.platform.store }, { today, tenantId: t.tenant.id });
    const call = await until("the call", async () => {
      const [c] = (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as {
        id: string;
        due_date: string;
      }[];
      return c;
    });

    const notice = await t.request("GET", `/api/leases/${id}/rent-calls/${call.id}/notice`);
    expect(notice.statusCode).toBe(200);
    const text = await pdfText(notice.rawPayload);
    expect(text).toContain(`Prélèvement SEPA de 740,00 € le ${longDate(call.due_date)}`);
    expect(text).toContain("FR72ZZZ123456");
    expect(text).toContain(mandate.json().rum);
    expect(text).not.toContain("Par virement");

    // Before the avis is delivered, the call was not pre-notified: nothing is debited.
    const early = await collect(account, addDays(today, 30));
    if (early.statusCode === 409) expect(early.json().details[0].message).toMatch(/pre-notification/);
    else throw new Error(`the avis was delivered before the first batch: ${early.body}`);

    await until("the avis delivered", async () => {
      const m = await t.request("GET", `/api/messages/${avisMessageId(call.id)}`);
      return m.statusCode === 200 && m.json().status === "DELIVERED";
    });
    const late = await collect(account, addDays(today, 13));
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().details[0].message).toContain(`Rent call ${call.id}`);
    const inTime = await collect(account, addDays(today, 14));
    expect(inTime.statusCode, inTime.body).toBe(201);
    expect(inTime.json().transactions.map((x: { rent_call_id: string }) => x.rent_call_id)).toEqual([
      call.id,
    ]);
    expect(inTime.json().left_out).toEqual([]);
  });

  it("avis emails off: the call's issue counts; a call whose avis was never sent is left out; a reject tells the tenants and the manager once", {
    timeout: 120_000,
  }, async () => {
    const today = legalToday();
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "SCI Les Ormes", iban: "FR7630006000011234567890189", creditor_id: "FR72ZZZ123456" },
      })
    ).json().id;
    const leases: string[] = [];
    for (const iban of ["FR1420041010050500013M02606", "DE89370400440532013000"]) {
      const { id, primary_lessee_id } = await newLease({
        payment_day: 5,
        payment_method: "PRELEVEMENT_AUTOMATIQUE",
      });
      const m = await t.request("POST", `/api/leases/${id}/sepa-mandates`, {
        body: { lessee_id: primary_lessee_id, iban, signed_on: "2024-12-20" },
      });
      expect(m.statusCode, m.body).toBe(201);
      expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
      leases.push(id);
    }
    // The January 2025 calls: due two years ago, too old for an avis email (STALE).
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: t.tenant.id },
    );
    await until("both calls", async () => {
      const n = await Promise.all(
        leases.map(async (l) => (await t.request("GET", `/api/leases/${l}/rent-calls`)).json().length),
      );
      return n.every((x) => x > 0);
    });
    const refused = await collect(account, addDays(today, 40));
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().details).toHaveLength(2);

    const configuration = (await t.request("GET", "/api/configurations")).json();
    const saved = await t.request("PUT", "/api/configurations", {
      body: { ...configuration, rent_messages: { avis: false, avis_days_before: 10, quittance: true } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // Issued today: 13 days is too soon, 14 is in time.
    expect((await collect(account, addDays(today, 13))).statusCode).toBe(409);
    const batch = await collect(account, addDays(today, 14));
    expect(batch.statusCode, batch.body).toBe(201);
    expect(batch.json().transactions).toHaveLength(2);

    // The bank rejects both (AC04, AM04): each lease's tenants and the manager are told, once.
    const sender = { name: "Gestion Les Ormes", email: "gestion@example.fr", address: null };
    const current = (await t.request("GET", "/api/configurations")).json();
    expect((await t.request("PUT", "/api/configurations", { body: { ...current, sender } })).statusCode).toBe(
      200,
    );
    const b = batch.json();
    const e2e = (lease: string) =>
      b.transactions.find((x: { lease_id: string }) => x.lease_id === lease).end_to_end_id as string;
    const pain002 = readFileSync("test/fixtures/bank/pain002-rejects-bnp.xml", "utf8")
      .replaceAll("@@MSGID@@", b.message_id)
      .replaceAll("@@PMTINF@@", `${b.message_id.slice(0, 30)}-FRST`)
      .replaceAll("@@E2E:1@@", e2e(leases[0]))
      .replaceAll("@@E2E:2@@", e2e(leases[1]))
      .replaceAll("@@DUE@@", b.due_on);
    const report = () => {
      const { payload, type } = multipartForm(
        {},
        { content: Buffer.from(pain002), filename: "pain002.xml", type: "application/xml" },
      );
      return t.app.inject({
        method: "POST",
        url: `/api/sepa-collections/${b.id}/status-reports`,
        payload,
        headers: { "content-type": type, authorization: `Bearer ${t.tenant.key}` },
      });
    };
    expect((await report()).statusCode).toBe(200);
    const told = (m: ReceivedMail) => decodedText(m.raw).includes("n'a pas pu être effectué");
    const managed = (m: ReceivedMail) => decodedText(m.raw).includes("a été rejeté par la banque");
    await until(
      "two tenants and the manager twice told",
      () => smtp.accepted.filter(told).length === 2 && smtp.accepted.filter(managed).length === 2,
    );
    const tenantMail = decodedText(
      smtp.accepted.filter(told).find((m) => m.raw.includes("compte cl"))?.raw ?? "",
    );
    expect(tenantMail).toContain(
      "Le prélèvement SEPA de 850,00 € pour le loyer de la période du 1er janvier 2025 au 31 janvier 2025",
    );
    expect(tenantMail).toContain("compte clôturé");
    expect(tenantMail).toContain("de nouveau dû");
    expect(tenantMail).toContain(
      "Aucun frais ne vous est facturé pour ce rejet (loi n° 89-462 du 6 juillet 1989, art. 4 p)",
    );
    expect(tenantMail.slice(tenantMail.indexOf("Madame"))).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    const managerMails = smtp.accepted.filter(managed);
    expect(managerMails.every((m) => m.to.includes("gestion@example.fr"))).toBe(true);
    expect(decodedText(managerMails.map((m) => m.raw).join(""))).toContain(
      "provision insuffisante (code AM04)",
    );
    const sepaRejects = async () =>
      (await t.request("GET", "/api/messages?topic=sepa-reject")).json().length as number;
    expect(await sepaRejects()).toBe(4);

    // The same report again, and the settlement loop: nothing more is queued or sent.
    expect((await report()).statusCode).toBe(200);
    await settleCollectionLeftovers({ sql: t.sql, store: t.service.platform.store }, 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(await sepaRejects()).toBe(4);
    expect(smtp.accepted.filter(told)).toHaveLength(2);
    expect(smtp.accepted.filter(managed)).toHaveLength(2);
  });

  it("a reject the route did not finish telling is told by the settlement loop, once", {
    timeout: 120_000,
  }, async () => {
    const tenant = t.tenant.id;
    const [debit] = (await t.sql.query(
      `SELECT s.id::text AS collection_id, s.bank_account_id::text AS account, t->>'end_to_end_id' AS e2e
       FROM sepa_collections s, jsonb_array_elements(s.data->'transactions') t
       WHERE s.tenant_id = $1 AND s.rejected = '{}'::jsonb LIMIT 1`,
      [tenant],
    )) as { collection_id: string; account: string; e2e: string }[];
    expect(debit).toBeDefined();
    // A refund (MD06) decided, then the process stopped before telling anyone or cancelling.
    const written = await runCommand(
      {
        store: t.service.platform.store,
        tenant_id: tenant,
        metadata: {
          tenant_id: tenant,
          actor_key_id: null,
          correlation_id: null,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      },
      sepaCollectionsStream(debit.account),
      collectionDecider,
      {
        type: "ReturnDebit",
        collection_id: debit.collection_id,
        bank_account_id: debit.account,
        end_to_end_id: debit.e2e,
        reason_code: "MD06",
        line_id: "a-stopped-import",
      },
    );
    expect(written.events).toHaveLength(1);
    await t.service.platform.projections.waitFor(written.position as never);
    const refunded = (m: ReceivedMail) =>
      decodedText(m.raw).includes("remboursement demandé par le titulaire du compte");
    expect(smtp.accepted.filter(refunded)).toHaveLength(0);
    const deps = { sql: t.sql, store: t.service.platform.store };
    expect(await settleCollectionLeftovers(deps, 0)).toBeGreaterThan(0);
    await until("the tenant and the manager told", () => smtp.accepted.filter(refunded).length === 2);
    await settleCollectionLeftovers(deps, 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.accepted.filter(refunded)).toHaveLength(2);
  });
});
