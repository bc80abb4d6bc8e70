import { lesseeStream } from "../../events/lessees.ts";
import { senderOf } from "../../platform/config.ts";
import type { Sql } from "../../platform/db.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { type OutboxDeps, queueMessage } from "../../platform/outbox/queueMessage.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import {
  amendmentNoticeFacts,
  type PendingNotice,
  pendingAmendmentNotices,
} from "../../queries/amendmentNotices.ts";
import { findConfiguration, readTemplate } from "../../queries/settings.ts";
import { AMENDMENT_NOTICE_TEMPLATE, renderAmendmentNotice } from "./template.ts";

/**
 * Amendment notices (docs/messages.md): a reaction to the log. The `amendment_notices` projection
 * holds one row per amendment submitted, validated or rejected; this step queues one message per
 * tenant of the lease in the outbox, with an id derived from (event, lessee), so however often it
 * runs, crashes or runs in several workers, each tenant gets each notice once.
 */

/** An event older than this when first seen (a first deployment, a rebuild) is not announced. */
export const NOTICE_MAX_AGE_HOURS = 72;
const BATCH = 100;

export interface NoticeDeps extends OutboxDeps {
  sql: Sql;
  /** The service's sender (SMTP_FROM), named in the text until the tenant's own is read. */
  sender: { email: string; name: string | null };
  now?: () => Date;
}

/** The message id of one tenant's notice of one amendment event. */
export const amendmentNoticeId = (noticeId: string, lesseeId: string) =>
  deterministicUuid("amendment-notice", noticeId, lesseeId);

/**
 * The tenant's `amendment-notice` template (else the built-in one) and sender: the one its saved
 * configuration names, which the message is then sent from; else the service's (SMTP_FROM).
 */
async function tenantSettings(deps: NoticeDeps, tenantId: string) {
  const source = (await readTemplate(deps.sql, tenantId, "amendment-notice")) ?? AMENDMENT_NOTICE_TEMPLATE;
  const saved = (await findConfiguration(deps.sql, tenantId))?.configuration.sender;
  const sender = saved ? { name: saved.name, email: saved.email } : deps.sender;
  return { source, sender, from: saved ? sender : null };
}

/** Queues the messages of every pending notice; how many notices it handled. */
export async function queueAmendmentNotices(deps: NoticeDeps): Promise<number> {
  const now = deps.now?.() ?? new Date();
  let handled = 0;
  for (const notice of await pendingAmendmentNotices(deps.sql, BATCH)) {
    if (now.getTime() - Date.parse(notice.occurred_at) > NOTICE_MAX_AGE_HOURS * 3600_000) {
      await mark(deps.sql, notice.id, "STALE");
    } else if (await queueNotice(deps, notice)) {
      await mark(deps.sql, notice.id, "QUEUED");
    } else continue;
    handled++;
  }
  return handled;
}

/** false while the lease's read models have not caught up with the amendment yet. */
async function queueNotice(deps: NoticeDeps, notice: PendingNotice): Promise<boolean> {
  const facts = await amendmentNoticeFacts(deps.sql, notice);
  if (!facts.amendment) return false;
  const { source, sender, from } = await tenantSettings(deps, notice.tenant_id);
  for (const lessee of facts.recipients) {
    const { subject, text } = renderAmendmentNotice(
      {
        landlord: facts.landlord ?? { name: null, address: null },
        lessee,
        lessees: facts.recipients,
        // A lease has no reference of its own yet: its id stands for it.
        lease: { id: notice.lease_id, reference: notice.lease_id },
        estate: { address: facts.estate?.address ?? null },
        amendment: { ...facts.amendment, status: notice.status, reason: notice.reason },
        sender,
      },
      source,
    );
    const name = [lessee.first_name, lessee.last_name].filter(Boolean).join(" ") || lessee.legal_name;
    await queueMessage(deps, {
      tenant_id: notice.tenant_id,
      message_id: amendmentNoticeId(notice.id, lessee.lessee_id),
      to: [{ email: lessee.email, name }],
      from,
      subject,
      text,
      topic: "amendment-notice",
      related: { kind: "lease_amendment", id: notice.amendment_id },
      data_subjects: [lesseeStream(lessee.lessee_id)],
      causation_id: notice.id,
    });
  }
  return true;
}

/** The row is the worker's to stamp; the projection never writes these columns. */
const mark = (sql: Sql, id: string, handled: "QUEUED" | "STALE") =>
  sql.query("UPDATE amendment_notices SET handled_at = now(), handled = $2 WHERE id = $1", [id, handled]);

export const amendmentNoticeLoop: WorkerLoop = {
  name: "amendment-notices",
  open: ({ sql, store, config }) => {
    const sender = senderOf(config.SMTP_FROM);
    return { run: () => queueAmendmentNotices({ sql, store, sender }) };
  },
};
