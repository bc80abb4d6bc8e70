import { randomUUID } from "node:crypto";
import pg from "pg";
import { createPostgresSql, type Sql } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";

/** Every kind is a real PostgreSQL server (docs/decisions.md: the embedded store is PostgreSQL). */
export type DatabaseKind = "postgres";

/**
 * The server of TEST_DATABASE_URL: given by the caller, or the embedded PostgreSQL that the
 * global setup (`test/support/globalSetup.ts`) starts when it is unset.
 */
export const databaseKinds: DatabaseKind[] = ["postgres"];

/** A fresh, migrated database on the server of TEST_DATABASE_URL (dropped by `drop`). */
export async function createTestDatabase(
  _kind: DatabaseKind,
): Promise<{ sql: Sql; url?: string; drop(): Promise<void> }> {
  const { url, drop } = await createEmptyDatabase();
  const sql = createPostgresSql(url, { max: 10 });
  await migrate(sql);
  return {
    sql,
    url,
    async drop() {
      await sql.close();
      await drop();
    },
  };
}

/** A fresh database with nothing in it, as an operator gives the service (dropped by `drop`). */
export async function createEmptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base)
    throw new Error("TEST_DATABASE_URL is not set (run the tests through vitest: its global setup sets it)");
  // Named after the base database, so a gate run cleans up only what its own tests left (.ci/run).
  const prefix = new URL(base).pathname
    .slice(1)
    .replace(/[^A-Za-z0-9_]/g, "")
    .slice(0, 40)
    .toLowerCase();
  const name = `${prefix || "pms"}_t_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(base, name),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

/** The same server, another database (socket URLs too: postgres://user@localhost/db?host=/dir). */
function withDatabase(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}
