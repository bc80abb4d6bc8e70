import type { Sql } from "../db.ts";
import { comparePositions, type EventStore } from "../eventstore/eventStore.ts";
import type { Projection } from "./projection.ts";
import type { ProjectionRuntime } from "./runProjections.ts";

/**
 * For an API instance whose projectors run elsewhere: read-your-writes by polling the
 * checkpoints table, which the projectors move in the same transaction as their tables.
 */
export function watchProjections(sql: Sql, store: EventStore, projections: Projection[]): ProjectionRuntime {
  const names = projections.map((p) => p.name);
  return {
    async waitFor(position, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await sql.query(
          `SELECT commit_position::text AS c, prepare_position::text AS p FROM projection_checkpoints
           WHERE name = ANY($1::text[])`,
          [names],
        );
        const done =
          rows.length === names.length &&
          rows.every((r) => comparePositions({ commit: BigInt(r.c), prepare: BigInt(r.p) }, position) >= 0);
        if (done) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async lagOf(name, head) {
      if (!head) return 0;
      const [row] = await sql.query(
        "SELECT commit_position::text AS c, prepare_position::text AS p FROM projection_checkpoints WHERE name = $1",
        [name],
      );
      if (!row) return null;
      if (comparePositions({ commit: BigInt(row.c), prepare: BigInt(row.p) }, head) >= 0) return 0;
      return store.engine === "eventstoredb" ? null : -1;
    },
    async ready() {
      // Another instance builds the tables; wait (bounded) until each projection has a checkpoint.
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const [row] = await sql.query(
          "SELECT count(*)::int AS n FROM projection_checkpoints WHERE name = ANY($1::text[]) AND version >= 0",
          [names],
        );
        if (row.n >= names.length) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {},
  };
}
