import { legalToday } from "../../law/calendar.ts";
import type { Sql } from "../../platform/db.ts";
import { merkleRoot } from "../../platform/eventstore/chain.ts";
import type { EventStore, Position, RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { parisDate } from "../../platform/formatDates.ts";
import { dayLeaves } from "../../queries/audit.ts";

export const DAILY_ROOTS_QUEUE = "audit-daily-roots";

const PAGE = 5_000;

/**
 * The daily roots (docs/audit.md, "Daily roots"). Reads the log from where the last run stopped and
 * keeps, per tenant, Paris day (of the event's recording) and stream, the stream's last event of
 * that day (its head); then closes every day before `today` that has heads and no root: the root is
 * the Merkle root of that day's heads in stream-name order (chain.ts). A closed day never changes:
 * an event of a closed day read later (a write committed after the run) is covered by its chain only.
 */
export async function computeDailyRoots(
  deps: { sql: Sql; store: EventStore },
  options: { today?: string } = {},
): Promise<{ events: number; closed: { tenant_id: string; day: string; root: string; streams: number }[] }> {
  const { sql, store } = deps;
  const today = options.today ?? legalToday();
  let events = 0;
  for (;;) {
    const [row] = await sql.query(
      "SELECT commit_position::text AS commit, prepare_position::text AS prepare FROM audit_checkpoint",
    );
    const after: Position | undefined = row
      ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) }
      : undefined;
    // Past other databases' transactions, as the projectors read: they cannot write this log.
    const page = await store.readAll({ after, max_count: PAGE, past_other_databases: true });
    if (page.length === 0) break;
    const moved = await sql.transaction(async (tx) => {
      // One run at a time: a second one waits here, then finds the checkpoint moved and reads on.
      await tx.query("SELECT pg_advisory_xact_lock(7261120)");
      const [now] = await tx.query("SELECT commit_position::text AS commit FROM audit_checkpoint");
      if ((now?.commit ?? null) !== (row?.commit ?? null)) return false;
      const heads = headsOf(page);
      await tx.query(
        `INSERT INTO audit_stream_heads (tenant_id, day, stream_name, stream_revision, hash)
         SELECT h.tenant_id, h.day::date, h.stream_name, h.stream_revision, h.hash
         FROM json_to_recordset($1::json) AS h(tenant_id text, day text, stream_name text, stream_revision bigint, hash text)
         WHERE NOT EXISTS (SELECT 1 FROM audit_roots r WHERE r.tenant_id = h.tenant_id AND r.day = h.day::date)
         ON CONFLICT (tenant_id, day, stream_name) DO UPDATE
           SET stream_revision = excluded.stream_revision, hash = excluded.hash
           WHERE audit_stream_heads.stream_revision < excluded.stream_revision`,
        [JSON.stringify(heads)],
      );
      const last = page[page.length - 1].position;
      await tx.query(
        `INSERT INTO audit_checkpoint (id, commit_position, prepare_position) VALUES (true, $1, $2)
         ON CONFLICT (id) DO UPDATE SET commit_position = $1, prepare_position = $2`,
        [last.commit.toString(), last.prepare.toString()],
      );
      return true;
    });
    if (moved) events += page.length;
  }
  return { events, closed: await closeDays(sql, today) };
}

/** The last chained event of each (tenant, Paris day, stream) of a page. */
function headsOf(page: RecordedEvent[]) {
  const heads = new Map<
    string,
    { tenant_id: string; day: string; stream_name: string; stream_revision: string; hash: string }
  >();
  for (const e of page) {
    if (!e.hash) continue;
    const day = parisDate(e.created_at);
    const key = `${e.metadata.tenant_id} ${day} ${e.stream_name}`;
    const known = heads.get(key);
    if (known && BigInt(known.stream_revision) > e.stream_revision) continue;
    heads.set(key, {
      tenant_id: e.metadata.tenant_id,
      day,
      stream_name: e.stream_name,
      stream_revision: e.stream_revision.toString(),
      hash: e.hash,
    });
  }
  return [...heads.values()];
}

/** Roots of the days before `today` that have heads and no root yet. */
async function closeDays(sql: Sql, today: string) {
  const open = await sql.query<{ tenant_id: string; day: string }>(
    `SELECT DISTINCT h.tenant_id, h.day::text AS day FROM audit_stream_heads h
     WHERE h.day < $1::date
       AND NOT EXISTS (SELECT 1 FROM audit_roots r WHERE r.tenant_id = h.tenant_id AND r.day = h.day)
     ORDER BY 2, 1`,
    [today],
  );
  const closed = [];
  for (const { tenant_id, day } of open) {
    const leaves = await dayLeaves(sql, tenant_id, day);
    const root = merkleRoot(leaves.map((l) => l.hash));
    const inserted = await sql.query(
      `INSERT INTO audit_roots (tenant_id, day, root, streams) VALUES ($1, $2::date, $3, $4)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [tenant_id, day, root, leaves.length],
    );
    if (inserted.length) closed.push({ tenant_id, day, root, streams: leaves.length });
  }
  return closed;
}
