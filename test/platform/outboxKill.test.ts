import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  evolveMessage,
  initialMessageState,
  type MessageEvent,
  messageStream,
} from "../../src/events/messages.ts";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import type { EventStore, RecordedEvent } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { freePort } from "../support/freePort.ts";
import { type ServiceProcess, startProcess, until, untilReady, userEnv } from "../support/serviceProcess.ts";
import { startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createEmptyDatabase } from "../support/testDatabase.ts";

/**
 * `kill -9` of the worker while messages are queued and some are in the middle of their send
 * (docs/messages.md, "Guarantees"): a second worker delivers every queued one; none is sent twice;
 * those the first had sent up to their end of data end UNCERTAIN, never resent on their own.
 */
describe("outbox under kill -9", () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: Sql;
  let store: EventStore;
  let smtp: TestSmtpServer;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createEmptyDatabase();
    smtp = await startSmtpServer(0, "hold");
  });
  afterAll(async () => {
    for (const p of processes) if (p.exited() === undefined) p.proc.kill("SIGKILL");
    await Promise.all(processes.map((p) => p.exit));
    await sql?.close();
    await smtp?.close();
    await database?.drop();
  });

  const serve = async (name: string) => {
    const port = await freePort();
    const p = startProcess(name, [process.execPath, "bin/pms.js", "serve"], {
      env: userEnv({
        DATABASE_URL: database.url,
        PORT: String(port),
        PMS_ADMIN_API_KEY: "admin-0123456789-0123456789-0123456789",
        LOG_LEVEL: "warn",
        SMTP_URL: smtp.url,
        SMTP_FROM: "gestion@example.fr",
        PMS_OUTBOX_CLAIM_SECONDS: "2",
        PMS_OUTBOX_POLL_MS: "50",
      }),
    });
    processes.push(p);
    await untilReady(`http://127.0.0.1:${port}`, [p]);
    return p;
  };
  const stateOf = async (id: string) =>
    ((await store.readStream(messageStream(id))) as RecordedEvent<MessageEvent>[]).reduce(
      evolveMessage,
      initialMessageState(),
    );

  it("loses nothing and sends nothing twice", async () => {
    const first = await serve("worker 1");
    sql = createPostgresSql(database.url);
    store = createPostgresEventStore(sql);
    const tenant = randomUUID();
    const ids = Array.from({ length: 20 }, () => randomUUID());
    for (const id of ids)
      await queueMessage(
        { store },
        {
          tenant_id: tenant,
          message_id: id,
          to: [{ email: "camille.martin@example.fr" }],
          subject: "Avis",
          text: "Bonjour",
          topic: "test",
        },
      );
    // The server holds its answer: the first worker's sends are past their end of data, the
    // other messages still queued, when it dies.
    await until("a first message at the server", [first], async () =>
      smtp.received.length > 0 ? true : null,
    );
    first.proc.kill("SIGKILL");
    await first.exit;
    const heldAtKill = smtp.received.map((m) => m.messageId);
    // Its held messages stay unanswered: their connections died with it.
    smtp.mode = "accept";

    const second = await serve("worker 2");
    const finals = await until("every message settled", [second], async () => {
      const states = await Promise.all(ids.map(stateOf));
      return states.every((s) => s.status === "DELIVERED" || s.status === "UNCERTAIN") ? states : null;
    });
    const header = (id: string) => `<${id}@example.fr>`;
    const delivered = ids.filter((_, i) => finals[i].status === "DELIVERED");
    const uncertain = ids.filter((_, i) => finals[i].status === "UNCERTAIN");
    // Nothing lost: every delivered one was accepted by the server, once.
    expect(smtp.accepted.map((m) => m.messageId).sort()).toEqual(delivered.map(header).sort());
    // Nothing sent twice: no message reached its end of data twice.
    const received = smtp.received.map((m) => m.messageId);
    expect(new Set(received).size).toBe(received.length);
    // What the server had in full when the first worker died is UNCERTAIN, not resent.
    expect(heldAtKill.length).toBeGreaterThan(0);
    expect(uncertain.map(header)).toEqual(expect.arrayContaining(heldAtKill));
    expect(delivered.length).toBeGreaterThanOrEqual(ids.length - 4);
    await second.stop();
  }, 240_000);
});
