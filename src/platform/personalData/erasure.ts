import type { Sql } from "../db.ts";
import {
  type EventMetadata,
  type EventStore,
  latestPosition,
  type Position,
} from "../eventstore/eventStore.ts";

/**
 * What an area erases of a data subject that it names outside the subject's own stream (the
 * messages sent to them, the signing processes they signed, the contracts printing them),
 * docs/personal-data.md. Each area declares its own in `src/areas.ts`; an erasure runs them all,
 * after the subject's key is destroyed. Idempotent: run again, they change nothing more.
 */
export interface SubjectErasure {
  /** Erases what names `dataSubject`; the position of the last event appended (null: none). */
  erase(
    deps: { sql: Sql; store: EventStore },
    tenantId: string,
    /** The subject's stream: `lessee-<id>`, `owner-<id>`, `contact-<id>`. */
    dataSubject: string,
    metadata: Omit<EventMetadata, "tenant_id">,
    /**
     * The subject's email addresses, lower-cased, read from its stream before its key was destroyed
     * (`addressesIn`): what was sent to them without naming the subject is theirs too. Empty on a
     * repeat and in the retention job's reruns (the key is gone by then).
     */
    addresses?: readonly string[],
  ): Promise<Position | null>;
  /**
   * Subjects already erased that the area still names, because a record was kept then (a lease
   * that still needed its signed contract): the retention job runs `erase` for them again, and
   * what is no longer needed goes. Of one tenant, or of all (null).
   */
  kept?(sql: Sql, tenantId: string | null): Promise<{ tenant_id: string; data_subject: string }[]>;
}

/** A data subject's stream name (`lessee-<id>`) split into its kind and id. */
export function subjectOf(dataSubject: string): { kind: string; id: string } {
  const dash = dataSubject.indexOf("-");
  return { kind: dataSubject.slice(0, dash), id: dataSubject.slice(dash + 1) };
}

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
  addresses: readonly string[] = [],
): Promise<Position | null> {
  const positions: (Position | null)[] = [];
  for (const e of deps.erasures)
    positions.push(await e.erase(deps, tenantId, dataSubject, metadata, addresses));
  return latestPosition(positions);
}

/**
 * Every email address a subject's events gave it (`email`, `previous_email`, in `data` or its
 * `changes`), lower-cased: read while its key lives, for `eraseWhereNamed`.
 */
export function addressesIn(events: readonly { data: unknown }[]): string[] {
  const found = new Set<string>();
  const add = (o: unknown) => {
    if (o === null || typeof o !== "object") return;
    for (const field of ["email", "previous_email"]) {
      const v = (o as Record<string, unknown>)[field];
      if (typeof v === "string" && v.trim()) found.add(v.trim().toLowerCase());
    }
  };
  for (const { data } of events) {
    add(data);
    add((data as { changes?: unknown } | null)?.changes);
  }
  return [...found];
}

/**
 * The retention job's second half: what the areas kept at an erasure and may now let go
 * (`SubjectErasure.kept`), erased again. The number of (area, subject) pairs run.
 */
export async function eraseKeptMentions(
  deps: ErasureDeps,
  tenantId: string | null,
  metadata: (tenantId: string) => Omit<EventMetadata, "tenant_id">,
): Promise<number> {
  let runs = 0;
  for (const e of deps.erasures)
    for (const { tenant_id, data_subject } of (await e.kept?.(deps.sql, tenantId)) ?? []) {
      await e.erase(deps, tenant_id, data_subject, metadata(tenant_id));
      runs++;
    }
  return runs;
}
