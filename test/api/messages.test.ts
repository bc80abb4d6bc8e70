import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueAmendmentNotices } from "../../src/commands/amendmentNotices/notify.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { decodedText, startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The outbox through the whole service (docs/messages.md): the worker's loops deliver to a real
 * SMTP server in this process; amendment notices reach each tenant with an email once per event;
 * GET /api/messages shows the status, tenant by tenant.
 */
describe.each(databaseKinds)("messages and amendment notices on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      kind,
      {
        SMTP_URL: smtp.url,
        SMTP_FROM: "Gestion Dupont <gestion@dupont-immo.fr>",
        PMS_OUTBOX_POLL_MS: "50",
      },
      { loops: true },
    );
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  const { newLease, newLessee, setStatus } = leaseFixtures(() => t);

  const until = async <T>(what: string, check: () => Promise<T | null | undefined | false>) => {
    for (let i = 0; i < 600; i++) {
      const found = await check();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not within 30 s: ${what}`);
  };
  const messagesOf = async (query: string, as = t.tenant) => {
    const res = await t.request("GET", `/api/messages?${query}`, { as });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; status: string; to: { email: string }[]; subject: string }[];
  };
  const emailOf = async (lesseeId: string) =>
    (await t.request("GET", `/api/lessees/${lesseeId}`)).json().email as string;

  it("tells each tenant with an email, once per amendment event; guarantors are not told", async () => {
    const { id, primary_lessee_id } = await newLease();
    const coTenant = await newLessee();
    const guarantor = await newLessee("guarantor");
    for (const [lessee_id, role] of [
      [coTenant, "CoTenant"],
      [guarantor, "Guarantor"],
    ])
      expect(
        (await t.request("POST", `/api/leases/${id}/lessees`, { body: { lessee_id, role } })).statusCode,
      ).toBe(201);
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const drafted = await t.request("POST", `/api/leases/${id}/amendments`, {
      body: {
        title: "Loyer révisé d'un commun accord",
        effective_date: "2026-01-01",
        changes: { rent_amount: 780 },
      },
    });
    expect(drafted.statusCode, drafted.body).toBe(201);
    const url = `/api/leases/${id}/amendments/${drafted.json().id}`;
    for (const status of ["PENDING_VALIDATION", "VALIDATED"])
      expect((await t.request("PUT", `${url}/status`, { body: { status } })).statusCode).toBe(200);

    const related = `related_kind=lease_amendment&related_id=${drafted.json().id}`;
    const delivered = await until("four notices delivered", async () => {
      const list = await messagesOf(`${related}&status=DELIVERED`);
      return list.length === 4 ? list : null;
    });
    const tenants = [await emailOf(primary_lessee_id), await emailOf(coTenant)].sort();
    expect(delivered.flatMap((m) => m.to.map((r) => r.email)).sort()).toEqual(
      [...tenants, ...tenants].sort(),
    );
    expect(delivered.map((m) => m.subject).sort()).toEqual([
      "Avenant à votre bail soumis à validation : Loyer révisé d'un commun accord",
      "Avenant à votre bail soumis à validation : Loyer révisé d'un commun accord",
      "Avenant à votre bail validé : Loyer révisé d'un commun accord",
      "Avenant à votre bail validé : Loyer révisé d'un commun accord",
    ]);
    const sent = smtp.accepted.filter((m) =>
      delivered.some((d) => m.messageId === `<${d.id}@dupont-immo.fr>`),
    );
    expect(sent).toHaveLength(4);
    expect(sent.every((m) => m.from === "gestion@dupont-immo.fr")).toBe(true);
    const guarantorEmail = await emailOf(guarantor);
    expect(smtp.accepted.some((m) => m.to.includes(guarantorEmail))).toBe(false);
    const texts = sent.map((m) => decodedText(m.raw));
    expect(texts.filter((x) => x.includes("Il prend effet le 1er janvier 2026."))).toHaveLength(2);
    expect(texts.filter((x) => x.includes("est soumis à votre validation"))).toHaveLength(2);
    // The dwelling and the parties, not the lease's id.
    expect(texts.every((x) => x.includes("Locataire(s) : ") && x.includes("Bailleur : "))).toBe(true);
    expect(texts.some((x) => x.includes(id))).toBe(false);

    // The reaction again from the start (a rebuild, a crash before its stamp): nothing new.
    await t.sql.query("UPDATE amendment_notices SET handled_at = NULL, handled = NULL");
    await queueAmendmentNotices({
      sql: t.sql,
      store: t.service.platform.store,
      sender: { email: "gestion@dupont-immo.fr", name: null },
    });
    expect(await messagesOf(related)).toHaveLength(4);
    // Seen for the first time more than 72 hours after its event (a first deployment, a late
    // rebuild): not announced, whether the running worker or this call gets to it first.
    const late = randomUUID();
    await t.sql.query(
      `INSERT INTO amendment_notices (tenant_id, id, lease_id, amendment_id, status, reason, occurred_at)
       VALUES ($1, $2, $3, $4, 'VALIDATED', NULL, now() - interval '73 hours')`,
      [t.tenant.id, late, id, drafted.json().id],
    );
    await queueAmendmentNotices({
      sql: t.sql,
      store: t.service.platform.store,
      sender: { email: "gestion@dupont-immo.fr", name: null },
    });
    const [stale] = await t.sql.query("SELECT handled FROM amendment_notices WHERE id = $1", [late]);
    expect(stale.handled).toBe("STALE");
    expect(await messagesOf(related)).toHaveLength(4);
    expect(
      Number((await t.sql.query("SELECT count(*)::int AS n FROM events WHERE type = 'MessageQueued'"))[0].n),
    ).toBe(smtp.accepted.length);
  });

  it("a rejected amendment is announced as rejected, with the tenant's own template and sender", async () => {
    const configuration = (await t.request("GET", "/api/configurations")).json();
    const sender = { name: "Agence Lyon Gestion", email: "agence@lyon-gestion.fr", address: null };
    expect(
      (await t.request("PUT", "/api/configurations", { body: { ...configuration, sender } })).statusCode,
    ).toBe(200);
    const source =
      "{{landlord.name}} vous informe : « {{amendment.title}} » est {{amendment.status}}. {{sender.name}}";
    const saved = await t.request("PUT", "/api/templates/amendment-notice", { body: { source } });
    expect(saved.statusCode, saved.body).toBe(200);
    const { id } = await newLease();
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const drafted = await t.request("POST", `/api/leases/${id}/amendments`, {
      body: { title: "Fin anticipée", effective_date: "2026-03-01", changes: { end_date: "2026-12-31" } },
    });
    const url = `/api/leases/${id}/amendments/${drafted.json().id}`;
    for (const body of [
      { status: "PENDING_VALIDATION" },
      { status: "REJECTED", reason: "Désaccord sur la date" },
    ])
      expect((await t.request("PUT", `${url}/status`, { body })).statusCode).toBe(200);
    const related = `related_kind=lease_amendment&related_id=${drafted.json().id}`;
    const list = await until("two notices delivered", async () => {
      const l = await messagesOf(`${related}&status=DELIVERED`);
      return l.length === 2 ? l : null;
    });
    const rejected = list.find((m) => m.subject.startsWith("Avenant à votre bail refusé"));
    expect(rejected).toBeDefined();
    const mail = smtp.accepted.find((m) => m.messageId === `<${rejected?.id}@lyon-gestion.fr>`);
    expect(mail?.from).toBe("agence@lyon-gestion.fr");
    expect(decodedText(mail?.raw ?? "")).toContain("« Fin anticipée » est REJECTED. Agence Lyon Gestion");
    // Back to the built-in template for the other cases.
    expect((await t.request("DELETE", "/api/templates/amendment-notice")).statusCode).toBe(204);
  });

  it("shows a message's status to its tenant only, with paging, filters and SettingsRead", async () => {
    const id = randomUUID();
    await queueMessage(t.service.platform, {
      tenant_id: t.tenant.id,
      message_id: id,
      to: [{ email: "lea.bernard@example.fr", name: "Léa Bernard" }],
      subject: "Code de vérification",
      text: "123456",
      topic: "otp",
    });
    const message = await until("delivered", async () => {
      const res = await t.request("GET", `/api/messages/${id}`);
      return res.statusCode === 200 && res.json().status === "DELIVERED" ? res : null;
    });
    expect(message.headers.etag).toBe('W/"3"');
    expect(message.json()).toMatchObject({
      id,
      topic: "otp",
      channel: "email",
      to: [{ email: "lea.bernard@example.fr", name: "Léa Bernard" }],
      related: null,
      attempts: 1,
      last_error: null,
      next_attempt_at: null,
    });
    expect(message.json().provider_message_id).toMatch(/^T\d+$/);
    expect((await t.request("GET", `/api/messages/${id}`, { as: t.other })).statusCode).toBe(404);
    expect(await messagesOf("", t.other)).toEqual([]);
    expect((await messagesOf("topic=otp")).map((m) => m.id)).toEqual([id]);
    expect(await messagesOf("topic=otp&status=FAILED")).toEqual([]);
    const page = await t.request("GET", "/api/messages?limit=1&page=2");
    expect(page.json()).toHaveLength(1);
    expect(Number(page.headers["x-total-count"])).toBeGreaterThanOrEqual(7);
    expect(page.headers.link).toContain('rel="next"');
    expect((await t.request("GET", "/api/messages?status=LOST")).statusCode).toBe(400);
    const leasesOnly = await t.newTenant("leases only", ["LeasesRead"]);
    expect((await t.request("GET", "/api/messages", { as: leasesOnly })).statusCode).toBe(403);
  });

  it("an operator settles an UNCERTAIN message: RESEND sends it again, once; anything else is refused", async () => {
    const id = randomUUID();
    const metadata = {
      tenant_id: t.tenant.id,
      actor_key_id: null,
      correlation_id: null,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    };
    const data = { message_id: id, attempt: 1 };
    // As a sender that died after its end of data leaves it (written at once: no worker claims it meanwhile).
    await t.service.platform.store.appendToStream(
      `message-${id}`,
      [
        {
          type: "MessageQueued",
          data: {
            message_id: id,
            channel: "email",
            to: [{ email: "lea.bernard@example.fr", name: null }],
            from: null,
            subject: "Relance",
            text: "Bonjour",
            html: null,
            attachments: [],
            topic: "rent-reminder",
            related: null,
          },
        },
        {
          type: "MessageSendStarted",
          data: { ...data, started_at: metadata.occurred_at, claim_expires_at: metadata.occurred_at },
        },
        { type: "MessageContentTransmitted", data },
        {
          type: "MessageOutcomeUnknown",
          data: { ...data, reason: "claim expired", detected_at: metadata.occurred_at },
        },
      ].map((e) => ({ ...e, event_id: randomUUID(), metadata })),
      { expected_revision: "no_stream" },
    );
    const url = `/api/messages/${id}`;
    await until("UNCERTAIN listed", async () => (await t.request("GET", url)).json().status === "UNCERTAIN");
    const settingsRead = await t.newTenant("settings reader", ["SettingsRead"]);
    expect(
      (await t.request("POST", `${url}/resolve`, { body: { resolution: "RESEND" }, as: settingsRead }))
        .statusCode,
    ).toBe(403);
    expect(
      (await t.request("POST", `${url}/resolve`, { body: { resolution: "RESEND" }, as: t.other })).statusCode,
    ).toBe(404);
    expect((await t.request("POST", `${url}/resolve`, { body: { resolution: "MAYBE" } })).statusCode).toBe(
      400,
    );
    const resent = await t.request("POST", `${url}/resolve`, { body: { resolution: "RESEND" } });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(["QUEUED", "SENDING", "DELIVERED"]).toContain(resent.json().status);
    const done = await until<{ attempts: number }>("delivered again", async () => {
      const res = await t.request("GET", url);
      return res.json().status === "DELIVERED" ? res.json() : null;
    });
    expect(done.attempts).toBe(2);
    expect(smtp.accepted.filter((m) => m.messageId?.startsWith(`<${id}@`))).toHaveLength(1);
    const again = await t.request("POST", `${url}/resolve`, { body: { resolution: "RESEND" } });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/is DELIVERED: only an UNCERTAIN message is resolved/);
  });
});
