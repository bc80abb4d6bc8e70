import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRentReminders } from "../../src/commands/rentCollection/reminders.ts";
import { queueRentMessages } from "../../src/commands/rentCollection/rentMessages.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addMonths, legalToday } from "../../src/law/calendar.ts";
import { longDate } from "../../src/platform/pdf/renderTemplate.ts";
import { eventually } from "../support/eventually.ts";
import { startTestProvider, type TestProvider } from "../support/identityProvider.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { registerProvider } from "../support/lesseeSpace.ts";
import { multipartForm } from "../support/multipart.ts";
import { decodedText, startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";

/**
 * A lease's messages end to end (docs/messages.md), through a real SMTP server in this process and
 * the worker's loops: created, signed by the tenant, the guarantor and the lessor (a code each), its rent call's avis, a payment
 * and its quittance, then a call left unpaid a month: one reminder letter to the tenant and the
 * guarantor's notice (code civil art. 2303). Exactly these messages arrive, once each, whatever
 * the runs that follow (a restart).
 */

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(1024, 7), Buffer.from("\n%%EOF\n")]);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i;

describe("a lease's messages, end to end", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let idp: TestProvider;
  let owner: TestTenant;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      "postgres",
      { SMTP_URL: smtp.url, SMTP_FROM: "Service <service@pms.example.fr>", PMS_OUTBOX_POLL_MS: "50" },
      { loops: true },
    );
    idp = await startTestProvider("messages-e2e");
    expect((await registerProvider(t, t.tenant.id, idp)).statusCode).toBe(200);
    owner = { id: "", key: await idp.sign({ roles: ["owner"] }, { expiresIn: "2h" }) };
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await smtp?.close();
  });
  const f = leaseFixtures(() => t);
  const body = (mail: { raw: string }) => {
    const text = decodedText(mail.raw);
    return text.slice(text.indexOf("\r\n\r\n"));
  };
  const upload = (leaseId: string, fields: Record<string, string>) => {
    const form = multipartForm(fields, { content: PDF, filename: "annexe.pdf", type: "application/pdf" });
    return t.app.inject({
      method: "POST",
      url: `/api/leases/${leaseId}/annexes`,
      payload: form.payload,
      headers: { "content-type": form.type, authorization: `Bearer ${t.tenant.key}` },
    });
  };

  it("sends the three signature codes, the avis, the quittance, one reminder and the guarantor's notice, once each", {
    timeout: 120_000,
  }, async () => {
    const today = legalToday();
    const day = Math.min(Number(today.slice(8, 10)), 28);
    // The tenant's sender and where alerts go.
    const configuration = (await t.request("GET", "/api/configurations")).json();
    const sender = { name: "Gestion Dupont", email: "gestion@dupont-immo.fr", address: null };
    expect(
      (await t.request("PUT", "/api/configurations", { body: { ...configuration, sender } })).statusCode,
    ).toBe(200);

    // Created: a lessor with an email, a tenant, a guarantor; started two months ago.
    const lessor = await t.request("POST", "/api/owners", {
      body: { category: "company", legal_name: "SCI Dupont", email: "bailleur@sci-dupont.fr" },
    });
    const start = addMonths(`${today.slice(0, 8)}${String(day).padStart(2, "0")}`, -2);
    const lease = await f.newLease({
      start_date: `${start.slice(0, 8)}01`,
      payment_day: day,
      rent_amount: 1000,
      charges_amount: 43.31,
      deposit_amount: 1000,
    });
    expect(
      (await t.request("PUT", `/api/estates/${lease.estate_id}`, { body: { owner_id: lessor.json().id } }))
        .statusCode,
    ).toBe(200);
    const tenantEmail = (await t.request("GET", `/api/lessees/${lease.primary_lessee_id}`)).json().email;
    const guarantor = await f.newLessee("guarantor");
    const guarantorEmail = (await t.request("GET", `/api/lessees/${guarantor}`)).json().email;
    expect(
      (
        await t.request("POST", `/api/leases/${lease.id}/lessees`, {
          body: { lessee_id: guarantor, role: "Guarantor" },
        })
      ).statusCode,
    ).toBe(201);

    // Signed: the mandatory annexes, a credit, a code to each signatory.
    expect(
      (
        await t.request("POST", `/api/leases/${lease.id}/annexes`, {
          body: { catalog_code: "NOTICE_INFORMATION" },
        })
      ).statusCode,
    ).toBe(201);
    for (const [code, date] of [
      ["DPE", addMonths(today, -12)],
      ["ERP", addMonths(today, -1)],
    ])
      expect((await upload(lease.id, { catalog_code: code, document_date: date })).statusCode).toBe(201);
    const session = (
      await t.request("POST", "/api/credits/checkout", { body: { package_id: "starter" }, as: owner })
    ).json();
    const url = new URL(session.checkout_url);
    expect((await t.request("GET", `${url.pathname}${url.search}`, { as: null })).statusCode).toBe(200);
    await eventually(
      async () => (await t.request("GET", "/api/credits/balance")).json().balance as number,
      (b) => b > 0,
    );
    const started = await t.request("POST", `/api/leases/${lease.id}/signature/initiate`);
    expect(started.statusCode, started.body).toBe(201);
    for (const s of started.json().signatories as { signatory_id: string; email: string }[]) {
      const at = smtp.accepted.length;
      const path = `/api/leases/${lease.id}/signature`;
      expect(
        (await t.request("POST", `${path}/request`, { body: { signatory_id: s.signatory_id } })).statusCode,
      ).toBe(200);
      const mail = await eventually(
        async () => smtp.accepted.slice(at).find((m) => m.to.includes(s.email)),
        (m) => m !== undefined,
      );
      const otp = /: (\d{6})/.exec(decodedText(mail?.raw ?? ""))?.[1] ?? "";
      expect(
        (await t.request("POST", `${path}/validate`, { body: { signatory_id: s.signatory_id, otp } }))
          .statusCode,
      ).toBe(200);
    }
    // The last signature activates the lease (the signing's reaction: a moment later under load).
    await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}`)).json().status as string,
      (status) => status === "ACTIVE",
    );

    // Rent: three calls (two past, one due today); the avis of today's, its PDF attached.
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today, tenantId: t.tenant.id });
    await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}/rent-calls`)).json().length,
      (n) => n === 3,
    );
    await eventually(
      async () => smtp.accepted.filter((m) => body(m).includes("l'avis d'échéance de votre loyer")).length,
      (n) => n === 1,
    );
    // A payment of one call: its quittance.
    const paid = await t.request("POST", `/api/leases/${lease.id}/payments`, {
      body: { amount: 1043.31, paid_on: today, method: "VIREMENT_BANCAIRE" },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    await eventually(
      async () => smtp.accepted.filter((m) => body(m).includes("ci-jointe votre quittance")).length,
      (n) => n === 1,
    );
    // A default: the call unpaid a month is reminded; the guarantor is told (art. 2303).
    await sendRentReminders(deps, { dry_run: false, tenant_id: t.tenant.id });
    await eventually(
      async () => smtp.accepted.filter((m) => body(m).includes("article 2303 du code civil")).length,
      (n) => n === 1,
    );
    // A restart: every reaction and the reminders again. Nothing new.
    await sendRentReminders(deps, { dry_run: false, tenant_id: t.tenant.id });
    await t.sql.query("UPDATE rent_call_messages SET avis_handled = NULL, quittance_handled = NULL");
    await queueRentMessages(deps);
    const expected = {
      "signature-code": 3,
      "rent-avis": 1,
      "rent-quittance": 1,
      "rent-reminder": 1,
      "guarantor-default": 1,
    };
    const delivered = await eventually(
      async () =>
        (await t.request("GET", "/api/messages?status=DELIVERED&limit=100")).json() as {
          topic: string;
          to: { email: string }[];
        }[],
      (list) => list.length === 7,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const topics: Record<string, number> = {};
    for (const m of (await t.request("GET", "/api/messages?limit=100")).json() as { topic: string }[])
      topics[m.topic] = (topics[m.topic] ?? 0) + 1;
    expect(topics).toEqual(expected);
    expect(smtp.accepted).toHaveLength(7);
    // Each to whom it is for; none to the no-reply address; French, no id where a person reads.
    const to = (topic: string) =>
      delivered.filter((m) => m.topic === topic).flatMap((m) => m.to.map((r) => r.email));
    expect(to("signature-code").sort()).toEqual(
      ["bailleur@sci-dupont.fr", tenantEmail, guarantorEmail].sort(),
    );
    for (const topic of ["rent-avis", "rent-quittance", "rent-reminder"])
      expect(to(topic)).toEqual([tenantEmail]);
    expect(to("guarantor-default")).toEqual([guarantorEmail]);
    expect(smtp.accepted.every((m) => m.from === "gestion@dupont-immo.fr")).toBe(true);
    for (const mail of smtp.accepted)
      expect(body(mail).replace(/--[^\r\n]+|Content-[^\r\n]+/g, "")).not.toMatch(UUID);
    const reminder = smtp.accepted.find((m) => body(m).includes("Sauf erreur de notre part"));
    expect(reminder && body(reminder)).toContain("1 043,31 €");
    const notice = smtp.accepted.find((m) => body(m).includes("article 2303 du code civil"));
    expect(notice && body(notice)).toContain(`l'échéance du ${longDate(addMonths(start, 1))}`);
  });
});
