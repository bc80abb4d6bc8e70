import { randomUUID } from "node:crypto";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { mapLimit } from "../../src/platform/mapLimit.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { deliverMessage } from "../../src/platform/outbox/deliver.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { smtpNotifier } from "../../src/platform/outbox/smtpNotifier.ts";
import { startSmtpServer } from "../../test/support/smtpServer.ts";
import type { Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const MESSAGES = 1000;

/**
 * The outbox (docs/messages.md): messages queued per second (32 at once), then delivered per second
 * by two deliverers racing over the same messages (4 sends each at once, as a worker does) to an
 * SMTP server in this process. Information only: a real relay's latency sets the real pace.
 */
export async function outboxStep(ctx: Context): Promise<void> {
  const url = await ctx.dbs.create("outbox");
  const sql = createPostgresSql(url);
  const store = createPostgresEventStore(sql);
  const smtp = await startSmtpServer();
  const notifiers = [smtpNotifier(smtp.url), smtpNotifier(smtp.url)];
  try {
    await migrate(sql);
    const tenant = randomUUID();
    const ids = Array.from({ length: MESSAGES }, () => randomUUID());
    let started = performance.now();
    await mapLimit(ids, 32, (id) =>
      queueMessage(
        { store },
        {
          tenant_id: tenant,
          message_id: id,
          to: [{ email: "camille.martin@example.fr" }],
          subject: "Avis d'échéance",
          text: "Bonjour,\nvotre avis d'échéance est disponible.",
          topic: "bench",
        },
      ),
    );
    const queued = MESSAGES / ((performance.now() - started) / 1000);
    started = performance.now();
    const results = await Promise.all(
      notifiers.map((notifier) =>
        mapLimit(ids, 4, (id) =>
          deliverMessage(
            { store, notifier, defaultFrom: { email: "gestion@example.fr", name: null }, claimSeconds: 300 },
            id,
          ),
        ),
      ),
    );
    const delivered = MESSAGES / ((performance.now() - started) / 1000);
    const sends = results.flat().filter((r) => r === "delivered").length;
    ctx.raw.outbox = {
      queued_per_second: queued,
      delivered_per_second: delivered,
      sends,
      accepted: smtp.accepted.length,
    };
    ctx.figures.push(
      {
        step: "outbox",
        metric: "messages queued/s (32 at once)",
        value: round(queued, 0),
        unit: "/s",
        target: "",
        pass: null,
      },
      {
        step: "outbox",
        metric: "messages delivered/s (2 deliverers racing, in-process SMTP)",
        value: round(delivered, 0),
        unit: "/s",
        target: "each sent once",
        pass: sends === MESSAGES && smtp.accepted.length === MESSAGES,
        note: `${sends} sends, ${smtp.accepted.length} accepted by the server for ${MESSAGES} messages`,
      },
    );
  } finally {
    for (const n of notifiers) await n.close();
    await smtp.close();
    await store.close();
    await sql.close();
  }
}
