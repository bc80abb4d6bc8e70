import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { messageStream } from "../../src/events/messages.ts";
import type { Sql } from "../../src/platform/db.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { type DelivererDeps, deliverMessage } from "../../src/platform/outbox/deliver.ts";
import type { Notifier } from "../../src/platform/outbox/notifier.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { smtpNotifier } from "../../src/platform/outbox/smtpNotifier.ts";
import { freePort } from "../support/freePort.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

/**
 * The outbox against a real SMTP server in this process (docs/messages.md): delivered once,
 * retried on a transient failure, FAILED on a permanent one, never sent twice by racing deliverers
 * or by a claim taken over.
 */
describe("outbox delivery over SMTP", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: Sql;
  let store: EventStore;
  let smtp: TestSmtpServer;
  const notifiers: Notifier[] = [];
  const tenantId = randomUUID();
  const T0 = new Date("2026-11-02T09:00:00.000Z");

  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    sql = db.sql;
    store = createPostgresEventStore(sql);
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    for (const n of notifiers) await n.close();
    await smtp?.close();
    await db?.drop();
  });
  beforeEach(() => {
    smtp.mode = "accept";
    smtp.received.length = 0;
    smtp.accepted.length = 0;
    smtp.cut = 0;
  });

  const deliverer = (now: Date, url = smtp.url, claimSeconds = 300): DelivererDeps => {
    const notifier = smtpNotifier(url);
    notifiers.push(notifier);
    return {
      store,
      notifier,
      defaultFrom: { email: "gestion@example.fr", name: "Gestion" },
      claimSeconds,
      now: () => now,
    };
  };
  const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
  const queue = async (id = randomUUID()) => {
    await queueMessage(
      { store },
      {
        tenant_id: tenantId,
        message_id: id,
        to: [{ email: "camille.martin@example.fr", name: "Camille Martin" }],
        subject: "Avenant au bail",
        text: "Bonjour,\nun avenant à votre bail est soumis à validation.",
        topic: "amendment-notice",
        related: { kind: "lease_amendment", id: randomUUID() },
      },
    );
    return id;
  };
  const types = async (id: string) => (await store.readStream(messageStream(id))).map((e) => e.type);

  it("queues once per message id: a second queue is a no-op", async () => {
    const id = randomUUID();
    const message = {
      tenant_id: tenantId,
      message_id: id,
      to: [{ email: "a@example.fr" }],
      subject: "s",
      text: "t",
      topic: "test",
    };
    expect(await queueMessage({ store }, message)).toEqual({ message_id: id, queued: true });
    expect(await queueMessage({ store }, { ...message, subject: "other" })).toEqual({
      message_id: id,
      queued: false,
    });
    expect(await types(id)).toEqual(["MessageQueued"]);
  });

  it("delivers a message once, with its deterministic Message-ID, and never again", async () => {
    const id = await queue();
    const d = deliverer(T0);
    expect(await deliverMessage(d, id)).toBe("delivered");
    expect(await deliverMessage(d, id)).toBe("skipped");
    expect(smtp.accepted).toHaveLength(1);
    expect(smtp.accepted[0]).toMatchObject({
      from: "gestion@example.fr",
      to: ["camille.martin@example.fr"],
      messageId: `<${id}@example.fr>`,
    });
    expect(smtp.accepted[0].raw).toContain("Subject: Avenant au bail");
    expect(await types(id)).toEqual([
      "MessageQueued",
      "MessageSendStarted",
      "MessageContentTransmitted",
      "MessageDelivered",
    ]);
    const [delivered] = (await store.readStream(messageStream(id))).slice(-1);
    expect(delivered.data.provider_message_id).toBe("T1");
    expect(delivered.metadata.tenant_id).toBe(tenantId);
  });

  it("carries the text, the HTML and a PDF attachment; the tenant's sender when it names one", async () => {
    const id = randomUUID();
    const pdf = Buffer.from("%PDF-1.7 quittance").toString("base64");
    await queueMessage(
      { store },
      {
        tenant_id: tenantId,
        message_id: id,
        to: [
          { email: "camille.martin@example.fr" },
          { email: "paul.martin@example.fr", name: "Paul Martin" },
        ],
        from: { email: "agence@lyon-gestion.fr", name: "Agence Lyon Gestion" },
        subject: "Quittance de loyer",
        text: "Veuillez trouver votre quittance.",
        html: "<p>Veuillez trouver votre <b>quittance</b>.</p>",
        attachments: [
          { filename: "quittance-2026-11.pdf", content_type: "application/pdf", content_base64: pdf },
        ],
        topic: "rent-receipt",
      },
    );
    expect(await deliverMessage(deliverer(T0), id)).toBe("delivered");
    const [mail] = smtp.accepted;
    expect(mail).toMatchObject({
      from: "agence@lyon-gestion.fr",
      to: ["camille.martin@example.fr", "paul.martin@example.fr"],
      messageId: `<${id}@lyon-gestion.fr>`,
    });
    expect(mail.raw).toMatch(/^From: Agence Lyon Gestion <agence@lyon-gestion.fr>/m);
    expect(mail.raw).toContain("Content-Type: text/html");
    expect(mail.raw).toMatch(/Content-Type: application\/pdf; name=quittance-2026-11.pdf/);
    expect(mail.raw).toContain(pdf);
  });

  it("refuses a message that could never be sent, before anything is queued", async () => {
    const id = randomUUID();
    const base = { tenant_id: tenantId, message_id: id, subject: "s", text: "t", topic: "test" };
    await expect(queueMessage({ store }, { ...base, to: [] })).rejects.toThrow(/at least one recipient/);
    await expect(queueMessage({ store }, { ...base, to: [{ email: "nobody" }] })).rejects.toThrow(
      /Invalid recipient email/,
    );
    await expect(
      queueMessage({ store }, { ...base, message_id: "x", to: [{ email: "a@b.fr" }] }),
    ).rejects.toThrow(/must be a UUID/);
    expect(await types(id)).toEqual([]);
  });

  it("logs in where the server asks for it; wrong credentials are retried (the relay's setting, not the message)", async () => {
    const guarded = await startSmtpServer(0, "accept", { user: "pms", pass: "s3cret" });
    try {
      const ok = await queue();
      const url = `smtp://pms:s3cret@127.0.0.1:${guarded.port}`;
      expect(await deliverMessage(deliverer(T0, url), ok)).toBe("delivered");
      expect(guarded.accepted.map((m) => m.messageId)).toEqual([`<${ok}@example.fr>`]);
      const refused = await queue();
      const wrong = `smtp://pms:wrong@127.0.0.1:${guarded.port}`;
      expect(await deliverMessage(deliverer(T0, wrong), refused)).toBe("retry");
      const [failed] = (await store.readStream(messageStream(refused))).slice(-1);
      expect(failed.data.error).toMatch(/535/);
    } finally {
      await guarded.close();
    }
  });

  it("retries a transient failure (451) after its back-off, then delivers", async () => {
    const id = await queue();
    smtp.mode = "tempfail";
    expect(await deliverMessage(deliverer(T0), id)).toBe("retry");
    const [failed] = (await store.readStream(messageStream(id))).slice(-1);
    expect(failed.data).toMatchObject({ will_retry: true, next_attempt_at: later(60).toISOString() });
    expect(failed.data.error).toMatch(/451/);
    smtp.mode = "accept";
    expect(await deliverMessage(deliverer(later(59)), id)).toBe("skipped");
    expect(await deliverMessage(deliverer(later(60)), id)).toBe("delivered");
    expect(smtp.accepted).toHaveLength(1);
    expect(smtp.received).toHaveLength(2);
  });

  it("retries while the server is down, then delivers once it is up", async () => {
    const id = await queue();
    const port = await freePort();
    expect(await deliverMessage(deliverer(T0, `smtp://127.0.0.1:${port}`), id)).toBe("retry");
    const [failed] = (await store.readStream(messageStream(id))).slice(-1);
    expect(failed.data).toMatchObject({ attempt: 1, will_retry: true });
    const up = await startSmtpServer(port);
    try {
      expect(await deliverMessage(deliverer(later(60), up.url), id)).toBe("delivered");
      expect(up.accepted.map((m) => m.messageId)).toEqual([`<${id}@example.fr>`]);
    } finally {
      await up.close();
    }
  });

  it("ends FAILED on a permanent refusal (550) and never tries again", async () => {
    const id = await queue();
    smtp.mode = "reject";
    expect(await deliverMessage(deliverer(T0), id)).toBe("failed");
    smtp.mode = "accept";
    expect(await deliverMessage(deliverer(later(86_400)), id)).toBe("skipped");
    const [failed] = (await store.readStream(messageStream(id))).slice(-1);
    expect(failed.data).toMatchObject({ will_retry: false, next_attempt_at: null });
    expect(failed.data.error).toMatch(/550/);
    expect(smtp.accepted).toHaveLength(0);
  });

  it("gives up after the last attempt: FAILED", async () => {
    const id = await queue();
    smtp.mode = "tempfail";
    let at = T0;
    const results: string[] = [];
    for (let i = 0; i < 8; i++) {
      results.push(await deliverMessage(deliverer(at), id));
      const [last] = (await store.readStream(messageStream(id))).slice(-1);
      at = last.data.next_attempt_at ? new Date(last.data.next_attempt_at) : at;
    }
    expect(results).toEqual([...Array(7).fill("retry"), "failed"]);
    expect(smtp.received).toHaveLength(8);
  });

  it("two deliverers racing send each message once", async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => queue()));
    const [a, b] = [deliverer(T0), deliverer(T0)];
    const results = await Promise.all(ids.flatMap((id) => [deliverMessage(a, id), deliverMessage(b, id)]));
    expect(results.filter((r) => r === "delivered")).toHaveLength(10);
    expect(results.filter((r) => r === "skipped")).toHaveLength(10);
    expect(smtp.accepted.map((m) => m.messageId).sort()).toEqual(
      ids.map((id) => `<${id}@example.fr>`).sort(),
    );
  });

  it("a claim taken over before the end of data stops its send short: the server discards it", async () => {
    const id = await queue();
    const slow = deliverer(T0, smtp.url, 30);
    const other = deliverer(later(31));
    const taken: string[] = [];
    // The first sender pauses at its end of data while another judges its claim abandoned.
    const paused: Notifier = {
      ...slow.notifier,
      send: (message, hooks) =>
        slow.notifier.send(message, {
          beforeEndOfData: async () => {
            taken.push(await deliverMessage(other, id));
            await hooks?.beforeEndOfData?.();
          },
        }),
    };
    expect(await deliverMessage({ ...slow, notifier: paused }, id)).toBe("retry");
    expect(taken).toEqual(["retry"]);
    await until(() => smtp.cut === 1);
    expect(smtp.received).toHaveLength(0);
    expect(await deliverMessage(other, id)).toBe("delivered");
    expect(smtp.accepted).toHaveLength(1);
    expect(await types(id)).toEqual([
      "MessageQueued",
      "MessageSendStarted",
      "MessageDeliveryFailed",
      "MessageSendStarted",
      "MessageContentTransmitted",
      "MessageDelivered",
    ]);
  });

  it("a connection lost after the end of data, before the server's answer: UNCERTAIN, not resent", async () => {
    const id = await queue();
    smtp.mode = "hold";
    const sending = deliverMessage(deliverer(T0), id);
    await until(() => smtp.received.length === 1);
    smtp.dropConnections();
    expect(await sending).toBe("uncertain");
    smtp.mode = "accept";
    expect(await deliverMessage(deliverer(later(86_400)), id)).toBe("skipped");
    expect(smtp.received).toHaveLength(1);
    const [unknown] = (await store.readStream(messageStream(id))).slice(-1);
    expect(unknown.type).toBe("MessageOutcomeUnknown");
    expect(unknown.data.reason).toBeTruthy();
  });

  it("a connection lost before the end of data: retried, the server had nothing", async () => {
    const id = await queue();
    smtp.mode = "cut-at-rcpt";
    expect(await deliverMessage(deliverer(T0), id)).toBe("retry");
    expect(smtp.received).toHaveLength(0);
    smtp.mode = "accept";
    expect(await deliverMessage(deliverer(later(60)), id)).toBe("delivered");
    expect(smtp.accepted).toHaveLength(1);
    expect(await types(id)).toEqual([
      "MessageQueued",
      "MessageSendStarted",
      "MessageDeliveryFailed",
      "MessageSendStarted",
      "MessageContentTransmitted",
      "MessageDelivered",
    ]);
  });

  it("a claim abandoned after its end of data is UNCERTAIN, not resent; a late answer settles it", async () => {
    const id = await queue();
    smtp.mode = "hold";
    const sending = deliverMessage(deliverer(T0, smtp.url, 30), id);
    await until(() => smtp.received.length === 1);
    await until(async () => (await types(id)).includes("MessageContentTransmitted"));
    smtp.mode = "accept";
    expect(await deliverMessage(deliverer(later(31)), id)).toBe("uncertain");
    expect(await deliverMessage(deliverer(later(3600)), id)).toBe("skipped");
    smtp.release();
    expect(await sending).toBe("delivered");
    expect(smtp.received).toHaveLength(1);
    expect((await types(id)).slice(-2)).toEqual(["MessageOutcomeUnknown", "MessageDelivered"]);
  });
});

async function until(check: () => boolean | Promise<boolean>, ms = 10_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
    if (await check()) return;
  throw new Error("condition not met in time");
}
