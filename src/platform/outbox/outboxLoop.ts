import { senderOf } from "../config.ts";
import { mapLimit } from "../mapLimit.ts";
import type { WorkerLoop } from "../workerLoops.ts";
import { deliverMessage } from "./deliver.ts";
import { dueMessageIds } from "./messagesProjection.ts";
import { smtpNotifier } from "./smtpNotifier.ts";

/** Messages handed to the notifier at once by one worker process. */
const PARALLEL_SENDS = 4;
const BATCH = 50;

/**
 * The deliverer as a worker loop. Without SMTP_URL nothing is sent: messages stay QUEUED and
 * visible until a worker starts with it (docs/decisions.md, "Messages without SMTP").
 */
export const outboxLoop: WorkerLoop = {
  name: "outbox",
  open({ sql, store, config, log }) {
    if (!config.SMTP_URL) {
      log.info("outbox: SMTP_URL is not set, messages stay QUEUED until a worker starts with it");
      return { run: async () => 0 };
    }
    const notifier = smtpNotifier(config.SMTP_URL);
    log.info(`outbox: delivering through ${notifier.describe}`);
    const deps = {
      store,
      notifier,
      defaultFrom: senderOf(config.SMTP_FROM),
      claimSeconds: config.PMS_OUTBOX_CLAIM_SECONDS,
    };
    return {
      async run() {
        const ids = await dueMessageIds(sql, new Date(), BATCH);
        const results = await mapLimit(ids, PARALLEL_SENDS, (id) => deliverMessage(deps, id));
        return results.filter((r) => r !== "skipped").length;
      },
      close: () => notifier.close(),
    };
  },
};
