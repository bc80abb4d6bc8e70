import { randomUUID } from "node:crypto";
import type { Sql } from "../../src/platform/db.ts";
import type { DomainEvent } from "../../src/platform/decider.ts";
import type { RecordedEvent } from "../../src/platform/eventstore/eventStore.ts";
import type { Projection } from "../../src/platform/projections/projection.ts";
import { createTestDatabase, type DatabaseKind } from "./testDatabase.ts";

/**
 * Given recorded events, the read-model tables hold these rows: projections tested without HTTP,
 * the event store or the projector runtime (docs/conventions.md, "Tests"). Each `given` runs in a
 * fresh tenant, so tests of one database do not see each other's rows.
 *
 *   const spec = await projectionSpec("postgres", [placesProjection]);
 *   const t = await spec.given([on(`place-${id}`, created)]);
 *   expect(await t.rows("places")).toMatchObject([{ id, name: "Tilleuls" }]);
 */
export interface GivenEvent {
  stream: string;
  event: DomainEvent;
  /** When it happened (metadata.occurred_at); defaults to a clock that moves 1 s per event. */
  at?: string;
}

export const on = (stream: string, event: DomainEvent, at?: string): GivenEvent => ({ stream, event, at });

export async function projectionSpec(kind: DatabaseKind, projections: Projection[]) {
  const db = await createTestDatabase(kind);
  for (const p of projections) await db.sql.exec(p.schema);
  let position = 0n;
  let clock = Date.parse("2025-01-01T00:00:00.000Z");
  return {
    sql: db.sql as Sql,
    /** Applies the events in one batch (as the projector would), then reads rows back. */
    async given(events: GivenEvent[], tenant_id: string = randomUUID()) {
      const revisions = new Map<string, bigint>();
      const recorded: RecordedEvent[] = events.map(({ stream, event, at }) => {
        const revision = (revisions.get(stream) ?? -1n) + 1n;
        revisions.set(stream, revision);
        position += 1n;
        clock += 1000;
        const occurred_at = at ?? new Date(clock).toISOString();
        return {
          ...event,
          event_id: randomUUID(),
          schema_version: 1,
          metadata: { tenant_id, actor_key_id: null, correlation_id: null, causation_id: null, occurred_at },
          stream_name: stream,
          stream_revision: revision,
          position: { commit: position, prepare: position },
          created_at: occurred_at,
        };
      });
      await db.sql.transaction(async (tx) => {
        for (const p of projections) await p.applyBatch(tx, recorded);
      });
      return {
        tenant_id,
        /** The tenant's rows of `table`, `id` order unless `orderBy` says otherwise. */
        rows: (table: string, orderBy = "id") =>
          db.sql.query(`SELECT * FROM ${table} WHERE tenant_id = $1 ORDER BY ${orderBy}`, [tenant_id]),
      };
    },
    close: () => db.drop(),
  };
}
