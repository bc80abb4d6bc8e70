import { randomUUID } from "node:crypto";
import pg from "pg";
import { createEmbeddedSql, createPostgresSql, type Sql } from "../../src/platform/db.ts";
import { migrate } from "../../src/platform/migrate.ts";

export type DatabaseKind = "postgres" | "embedded";

/** The kinds available here: embedded always, PostgreSQL when TEST_DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = process.env.TEST_DATABASE_URL
  ? ["embedded", "postgres"]
  : ["embedded"];

/**
 * A fresh, migrated database of the given kind. PostgreSQL: a new database created on the
 * server of TEST_DATABASE_URL (dropped by `drop`); embedded: an in-memory PGlite.
 */
export async function createTestDatabase(
  kind: DatabaseKind,
): Promise<{ sql: Sql; url?: string; drop(): Promise<void> }> {
  if (kind === "embedded") {
    const sql = await createEmbeddedSql(undefined);
    await migrate(sql);
    return { sql, drop: () => sql.close() };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error("TEST_DATABASE_URL is not set");
  const name = `pms_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const sql = createPostgresSql(url.toString(), { max: 10 });
  await migrate(sql);
  return {
    sql,
    url: url.toString(),
    async drop() {
      await sql.close();
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}
