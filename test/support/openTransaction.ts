import pg from "pg";
import type { Sql } from "../../src/platform/db.ts";

/**
 * A `Sql` over one dedicated connection inside BEGIN, left open until `commit` or `rollback`:
 * lets a test hold a transaction that has written events while other connections commit.
 */
export async function openTransaction(
  url: string,
): Promise<{ sql: Sql; commit(): Promise<void>; rollback(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  await client.query("BEGIN");
  const sql: Sql = {
    query: async (text, params) => (await client.query(text, params as unknown[])).rows,
    exec: async (text) => {
      // A multi-statement query answers one result per statement; callers want the last.
      const result: pg.QueryResult | pg.QueryResult[] = await client.query(text);
      return Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows;
    },
    transaction: (fn) => fn(sql),
    asTenant: (_tenant, fn) => fn(sql),
    listen: () => Promise.reject(new Error("listen inside a transaction")),
    tryLock: () => Promise.reject(new Error("lock inside a transaction")),
    close: async () => {},
  };
  const end = async (statement: string) => {
    try {
      await client.query(statement);
    } finally {
      await client.end().catch(() => {});
    }
  };
  return { sql, commit: () => end("COMMIT"), rollback: () => end("ROLLBACK") };
}
