import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../../src/platform/db.ts";
import type { EventStore } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { count, counterProjection, untilReadable } from "../support/counterProjection.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

/**
 * Row-level security is the second wall behind every query's own `tenant_id = $1`: a read-model
 * table ending its DDL with tenantPolicy() shows a tenant-bound reader only that tenant's rows,
 * even for a query with no WHERE at all.
 */
describe.each(databaseKinds)("row-level security on %s", (kind) => {
  let sql: Sql;
  let store: EventStore;
  let drop: () => Promise<void>;
  const a = randomUUID();
  const b = randomUUID();
  const ids = (rows: { tenant_id: string }[]) => [...new Set(rows.map((r) => r.tenant_id))];

  beforeAll(async () => {
    const db = await createTestDatabase(kind);
    sql = db.sql;
    store = createPostgresEventStore(sql);
    drop = async () => {
      await store.close();
      await db.drop();
    };
    for (let i = 0; i < 3; i++) await count(store, a, randomUUID(), [i]);
    let last = await count(store, b, randomUUID(), [0]);
    last = await count(store, b, randomUUID(), [1]);
    await untilReadable(store, last);
    // Built the way the runtime builds tables: in a shadow schema, then swapped in.
    await rebuildProjection(sql, store, counterProjection({ name: "rls_counter" }));
  });
  afterAll(async () => {
    await drop?.();
  });

  it("shows a tenant-bound reader only its tenant's rows, without any WHERE", async () => {
    const asA = await sql.asTenant(a, (tx) => tx.query("SELECT * FROM rls_counter"));
    expect(asA).toHaveLength(3);
    expect(ids(asA)).toEqual([a]);
    const asB = await sql.asTenant(b, (tx) => tx.query("SELECT tenant_id FROM rls_counter"));
    expect(asB).toHaveLength(2);
    expect(ids(asB)).toEqual([b]);
    expect(await sql.asTenant(randomUUID(), (tx) => tx.query("SELECT * FROM rls_counter"))).toEqual([]);
    // Aggregates too.
    const [{ n }] = await sql.asTenant(a, (tx) => tx.query("SELECT count(*)::int AS n FROM rls_counter"));
    expect(n).toBe(3);
  });

  it("keeps tenants apart under concurrent, interleaved readers", async () => {
    const reads = Array.from({ length: 40 }, (_, i) => {
      const tenant = i % 2 === 0 ? a : b;
      return sql.asTenant(tenant, async (tx) => ({
        tenant,
        rows: await tx.query("SELECT tenant_id FROM rls_counter"),
      }));
    });
    for (const { tenant, rows } of await Promise.all(reads)) {
      expect(rows.length).toBe(tenant === a ? 3 : 2);
      expect(ids(rows)).toEqual([tenant]);
    }
  });

  it("gives the reader no write access and no access to the event log", async () => {
    await expect(sql.asTenant(a, (tx) => tx.query("DELETE FROM rls_counter"))).rejects.toThrow(
      /permission denied/,
    );
    await expect(
      sql.asTenant(a, (tx) =>
        tx.query(
          "INSERT INTO rls_counter (tenant_id, id, stream_name, events, total, last_revision) VALUES ($1, $2, 'x', 1, 1, 0)",
          [a, randomUUID()],
        ),
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(sql.asTenant(a, (tx) => tx.query("SELECT * FROM events"))).rejects.toThrow(
      /permission denied/,
    );
    await expect(sql.asTenant(a, (tx) => tx.query("SELECT * FROM api_keys"))).rejects.toThrow(
      /permission denied/,
    );
    await expect(sql.asTenant(a, (tx) => tx.query("SELECT * FROM identity_providers"))).rejects.toThrow(
      /permission denied/,
    );
    expect((await sql.query("SELECT count(*)::int AS n FROM rls_counter"))[0].n).toBe(5);
  });

  it("does not leak the reader role or tenant into the service's own queries", async () => {
    await sql.asTenant(a, (tx) => tx.query("SELECT 1"));
    await sql.asTenant(b, () => Promise.reject(new Error("boom"))).catch(() => {});
    // The service's own connection still sees (and writes) everything.
    expect((await sql.query("SELECT count(*)::int AS n FROM rls_counter"))[0].n).toBe(5);
    const [{ role }] = await sql.query("SELECT current_user AS role");
    expect(role).not.toBe("pms_reader");
    await sql.transaction(async (tx) => {
      expect((await tx.query("SELECT count(*)::int AS n FROM rls_counter"))[0].n).toBe(5);
    });
    // And a later reader for another tenant is bound to that tenant, not the previous one.
    expect(ids(await sql.asTenant(b, (tx) => tx.query("SELECT tenant_id FROM rls_counter")))).toEqual([b]);
  });

  it("still applies after a rebuild swapped the table", async () => {
    await count(store, a, randomUUID(), [9]);
    await rebuildProjection(sql, store, counterProjection({ name: "rls_counter" }));
    const asA = await sql.asTenant(a, (tx) => tx.query("SELECT tenant_id FROM rls_counter"));
    expect(asA).toHaveLength(4);
    expect(ids(asA)).toEqual([a]);
    expect(ids(await sql.asTenant(b, (tx) => tx.query("SELECT tenant_id FROM rls_counter")))).toEqual([b]);
  });
});
