import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRentReminders } from "../../src/commands/rentCollection/reminders.ts";
import {
  avisMessageId,
  queueRentMessages,
  quittanceMessageId,
} from "../../src/commands/rentCollection/rentMessages.ts";
import { revisionLetterId, sendRevisionLetters } from "../../src/commands/rentCollection/revisionLetters.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addMonths, addYears, legalToday } from "../../src/law/calendar.ts";
import { longDate } from "../../src/platform/pdf/renderTemplate.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import {
  decodedText,
  type ReceivedMail,
  startSmtpServer,
  type TestSmtpServer,
} from "../support/smtpServer.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/**
 * Rent messages through the whole service (docs/messages.md, "Rent messages"): the worker's loops
 * email each call's avis and each quittance to a real SMTP server, once, whatever the replays.
 */

/** The PDF attached to a mail (base64 part after its headers). */
async function attachedText(mail: ReceivedMail, filename: RegExp): Promise<string> {
  const at = mail.raw.search(filename);
  expect(at, "attachment present").toBeGreaterThan(0);
  const body = mail.raw.slice(mail.raw.indexOf("\r\n\r\n", at) + 4);
  const base64 = body.slice(0, body.indexOf("--")).replace(/\s+/g, "");
  return pdfText(Buffer.from(base64, "base64"));
}

describe("rent messages", () => {
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
  const { newLease, newLessee, setStatus } = leaseFixtures(() => t);
  const until = async <T>(what: string, check: () => T | null | undefined | false | Promise<T | false>) => {
    for (let i = 0; i < 600; i++) {
      const found = await check();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not within 30 s: ${what}`);
  };
  const queued = async () =>
    Number((await t.sql.query("SELECT count(*)::int AS n FROM events WHERE type = 'MessageQueued'"))[0].n);

  it("emails one avis per call with its PDF, one quittance when paid, and nothing twice on a replay", {
    timeout: 90_000,
  }, async () => {
    const today = legalToday();
    const day = Math.min(Number(today.slice(8, 10)), 28);
    const { id } = await newLease({
      start_date: `${today.slice(0, 8)}01`,
      payment_day: day,
      rent_amount: 700,
      charges_amount: 40,
      deposit_amount: 700,
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls({ sql: t.sql, store: t.service.platform.store }, { today, tenantId: t.tenant.id });
    let call: { id: string } | undefined;
    for (let i = 0; i < 100 && !call; i++) {
      [call] = (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as { id: string }[];
      if (!call) await new Promise((r) => setTimeout(r, 50));
    }
    if (!call) throw new Error("no rent call after activation");

    const avis = await until("the avis delivered", () =>
      smtp.accepted.find((m) => decodedText(m.raw).includes("l'avis d'échéance de votre loyer")),
    );
    expect(await attachedText(avis, /filename="?avis-echeance-/)).toContain("Total à payer 740,00 €");

    const paid = await t.request("POST", `/api/leases/${id}/payments`, {
      body: { amount: 740, paid_on: today, method: "VIREMENT_BANCAIRE" },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const quittance = await until("the quittance delivered", () =>
      smtp.accepted.find((m) => decodedText(m.raw).includes("ci-jointe votre quittance")),
    );
    const text = await attachedText(quittance, /filename="?quittance-/);
    expect(text).toContain("Quittance de loyer n°");
    expect(text).toContain("740,00 €");

    // Replayed from the start (a rebuild, a crash before the stamps): nothing new is queued or sent.
    const before = await queued();
    await t.sql.query("UPDATE rent_call_messages SET avis_handled = NULL, quittance_handled = NULL");
    await queueRentMessages({ sql: t.sql, store: t.service.platform.store });
    await new Promise((r) => setTimeout(r, 500));
    expect(await queued()).toBe(before);
    const ids = [avisMessageId(call.id), quittanceMessageId(call.id)];
    for (const mid of ids)
      expect((await t.request("GET", `/api/messages/${mid}`)).json().status).toBe("DELIVERED");
    expect(
      smtp.accepted.filter((m) => decodedText(m.raw).includes("l'avis d'échéance de votre loyer")),
    ).toHaveLength(1);
    expect(
      smtp.accepted.filter((m) => decodedText(m.raw).includes("ci-jointe votre quittance")),
    ).toHaveLength(1);
  });

  it("reminds a lease of every overdue call in one letter per level, once", { timeout: 90_000 }, async () => {
    const today = legalToday();
    const start = addMonths(`${today.slice(0, 8)}01`, -3);
    const { id } = await newLease({
      start_date: start,
      payment_day: 1,
      rent_amount: 600,
      charges_amount: 30,
      deposit_amount: 600,
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today, tenantId: t.tenant.id });
    for (let i = 0; i < 200; i++) {
      if ((await t.request("GET", `/api/leases/${id}/rent-calls`)).json().length >= 4) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const run = await sendRentReminders(deps, { dry_run: false, tenant_id: t.tenant.id });
    const mine = run.sent.filter((s) => s.lease_id === id);
    expect(mine.map((s) => s.level)).toEqual([1, 1, 1]);
    const letter = await until("the reminder letter", () =>
      smtp.accepted.find((m) => decodedText(m.raw).includes("les échéances suivantes")),
    );
    const text = decodedText(letter.raw);
    expect(text).toContain(`période du ${longDate(start)}`);
    expect(text).toContain(`période du ${longDate(addMonths(start, 2))}`);
    expect(text).toContain("Total dû : 1 890,00 €");
    // Run again (a restart): every reminder is recorded, the letter was queued: nothing new.
    const again = await sendRentReminders(deps, { dry_run: false, tenant_id: t.tenant.id });
    expect(again.sent.filter((s) => s.lease_id === id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.accepted.filter((m) => decodedText(m.raw).includes("les échéances suivantes"))).toHaveLength(
      1,
    );
    const [{ n }] = await t.sql.query(
      "SELECT count(*)::int AS n FROM messages WHERE topic = 'rent-reminder' AND status = 'DELIVERED'",
    );
    expect(n).toBe(1);
    // Each reminder shows the letter's delivery.
    const reminders = await until("the reminders delivered", async () => {
      const list = (await t.request("GET", `/api/leases/${id}/reminders`)).json();
      return (
        list.length === 3 &&
        list.every((r: { delivery_status: string }) => r.delivery_status === "DELIVERED") &&
        list
      );
    });
    expect(reminders).toHaveLength(3);
  });

  it("tells the guarantor of the first incident once, and copies each formal notice to them, once", {
    timeout: 90_000,
  }, async () => {
    const today = legalToday();
    const start = addMonths(`${today.slice(0, 8)}01`, -2);
    const { id } = await newLease({
      start_date: start,
      payment_day: 1,
      rent_amount: 1000,
      charges_amount: 43.31,
      deposit_amount: 1000,
    });
    const guarantor = await newLessee("guarantor");
    expect(
      (
        await t.request("POST", `/api/leases/${id}/lessees`, {
          body: { lessee_id: guarantor, role: "Guarantor" },
        })
      ).statusCode,
    ).toBe(201);
    const guarantorEmail = (await t.request("GET", `/api/lessees/${guarantor}`)).json().email as string;
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today, tenantId: t.tenant.id });
    await until(
      "three calls",
      async () => (await t.request("GET", `/api/leases/${id}/rent-calls`)).json().length >= 3,
    );
    const toGuarantor = () => smtp.accepted.filter((m) => m.to.includes(guarantorEmail));
    // Day 1: the calls two and one months old are incidents (art. 2303): one notice.
    await sendRentReminders(deps, { dry_run: false, tenant_id: t.tenant.id });
    const notice = await until("the guarantor's notice", () => toGuarantor()[0]);
    const text = decodedText(notice.raw);
    expect(text).toContain("article 2303 du code civil");
    expect(text).toContain(`l'échéance du ${longDate(start)}`);
    expect(text).toContain("Total dû : 3 129,93 €");
    expect(text.slice(text.indexOf("Madame"))).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    // Two days later the formal notice reaches the tenant (levels 2, then 3, a day apart): its copy the guarantor.
    const day = 86_400_000;
    await sendRentReminders(deps, {
      dry_run: false,
      tenant_id: t.tenant.id,
      now: new Date(Date.now() + day),
    });
    await sendRentReminders(deps, {
      dry_run: false,
      tenant_id: t.tenant.id,
      now: new Date(Date.now() + 2 * day),
    });
    const copy = await until("the formal notice's copy", () =>
      toGuarantor().find((m) => decodedText(m.raw).includes("En votre qualité de caution")),
    );
    const copied = decodedText(copy.raw);
    expect(copied).toContain("Nous vous mettons en demeure de régler ces sommes");
    expect(copied).toContain("art. 24 I");
    // Restarts: every run again, nothing new for the guarantor.
    for (const offset of [0, 2 * day, 3 * day])
      await sendRentReminders(deps, {
        dry_run: false,
        tenant_id: t.tenant.id,
        now: new Date(Date.now() + offset),
      });
    await new Promise((r) => setTimeout(r, 800));
    expect(toGuarantor().map((m) => decodedText(m.raw).includes("En votre qualité de caution"))).toEqual([
      false,
      true,
    ]);
    const [{ n }] = await t.sql.query(
      "SELECT count(*)::int AS n FROM messages WHERE topic IN ('guarantor-default', 'guarantor-formal-notice')",
    );
    expect(n).toBe(2);
  });

  it("sends the yearly IRL revision letter on the anniversary, once, its figures in French", {
    timeout: 90_000,
  }, async () => {
    const today = legalToday();
    const { id } = await newLease({
      start_date: addYears(today, -2),
      payment_day: 1,
      rent_amount: 1000,
      charges_amount: 50,
      deposit_amount: 1000,
      revision_index_type: "IRL",
      revision_reference_quarter: "2024-Q3",
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const deps = { sql: t.sql, store: t.service.platform.store };
    const sent = await sendRevisionLetters(deps, { tenant_id: t.tenant.id });
    expect(sent).toEqual([revisionLetterId(id, today)]);
    const letter = await until("the revision letter", () =>
      smtp.accepted.find((m) => decodedText(m.raw).includes("votre loyer hors charges est révisé")),
    );
    const text = decodedText(letter.raw);
    expect(text).toContain(`à compter du ${longDate(today)}`);
    expect(text).toContain("IRL du 3e trimestre 2025 : 145,77");
    expect(text).toContain("du 3e trimestre 2024 : 144,51");
    // 1 000 × 145,77 / 144,51 = 1 008,719…: rounded down to the cent.
    expect(text).toContain("loyer révisé : 1 008,71 €");
    expect(text.slice(text.indexOf("Madame"))).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    // Again (a restart, the next day's run within the week): nothing new.
    expect(await sendRevisionLetters(deps, { tenant_id: t.tenant.id })).toEqual([]);
    expect(
      await sendRevisionLetters(deps, { tenant_id: t.tenant.id, now: new Date(Date.now() + 86_400_000) }),
    ).toEqual([]);
    // Not the anniversary: no letter for a lease a year and a month old.
    const { id: other } = await newLease({
      start_date: addMonths(addYears(today, -1), -1),
      revision_index_type: "IRL",
      revision_reference_quarter: "2024-Q3",
    });
    expect((await setStatus(other, "ACTIVE")).statusCode).toBe(200);
    expect(await sendRevisionLetters(deps, { tenant_id: t.tenant.id })).toEqual([]);
  });

  it("a tenant that turned rent messages off gets no avis and no quittance", {
    timeout: 90_000,
  }, async () => {
    const configuration = (await t.request("GET", "/api/configurations")).json();
    const off = { avis: false, avis_days_before: 10, quittance: false };
    const saved = await t.request("PUT", "/api/configurations", {
      body: { ...configuration, rent_messages: off },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await t.request("GET", "/api/configurations")).json().rent_messages).toEqual(off);
    const today = legalToday();
    const { id } = await newLease({
      start_date: `${today.slice(0, 8)}01`,
      payment_day: Math.min(Number(today.slice(8, 10)), 28),
      rent_amount: 500,
      charges_amount: 20,
      deposit_amount: 500,
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls({ sql: t.sql, store: t.service.platform.store }, { today, tenantId: t.tenant.id });
    const call = await until("the call", async () => {
      const [c] = (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as { id: string }[];
      return c;
    });
    const paid = await t.request("POST", `/api/leases/${id}/payments`, {
      body: { amount: 520, paid_on: today, method: "VIREMENT_BANCAIRE" },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const row = await until("both handled", async () => {
      const [r] = await t.sql.query(
        "SELECT avis_handled, quittance_handled FROM rent_call_messages WHERE id = $1",
        [call.id],
      );
      return r?.avis_handled && r.quittance_handled ? r : false;
    });
    expect(row).toEqual({ avis_handled: "OFF", quittance_handled: "OFF" });
    const related = await t.request("GET", `/api/messages?related_kind=rent_call&related_id=${call.id}`);
    expect(related.json()).toEqual([]);
  });
});
