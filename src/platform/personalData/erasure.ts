import type { Sql } from "../db.ts";
import {
  type EventMetadata,
  type EventStore,
  latestPosition,
  type Position,
} from "../eventstore/eventStore.ts";

/**
 * What an area erases of a data subject that it names outside the subject's own stream (the
 * messages sent to them, the signing processes they signed), docs/personal-data.md. Each area
 * declares its own in `src/areas.ts`; an erasure runs them all, after the subject's key is
 * destroyed. Idempotent: a repeated erasure runs them again and changes nothing more. Each answers
 * the position of the last event it appended (null: none), which the erasure's answer waits for.
 */
export type SubjectErasure = (
  deps: { sql: Sql; store: EventStore },
  tenantId: string,
  /** The subject's stream: `lessee-<id>`, `owner-<id>`, `contact-<id>`. */
  dataSubject: string,
  metadata: Omit<EventMetadata, "tenant_id">,
) => Promise<Position | null>;

export interface ErasureDeps {
  sql: Sql;
  store: EventStore;
  erasures: readonly SubjectErasure[];
}

/** Runs every area's erasure of `dataSubject`, one after the other; the last position appended. */
export async function eraseWhereNamed(
  deps: ErasureDeps,
  tenantId: string,
  dataSubject: string,
  metadata: Omit<EventMetadata, "tenant_id">,
): Promise<Position | null> {
  const positions: (Position | null)[] = [];
  for (const erase of deps.erasures) positions.push(await erase(deps, tenantId, dataSubject, metadata));
  return latestPosition(positions);
}
