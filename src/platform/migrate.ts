import { readdir, readFile } from "node:fs/promises";
import type { Sql } from "./db.ts";

const migrationsDir = new URL("./migrations/", import.meta.url);

/** Applies the SQL files of src/platform/migrations in name order, each once, under a lock. */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith(".sql")).sort();
  return sql.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(7261001)");
    await tx.query(
      "CREATE TABLE IF NOT EXISTS pms_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const done = new Set((await tx.query<{ id: string }>("SELECT id FROM pms_migrations")).map((r) => r.id));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const text = await readFile(new URL(file, migrationsDir), "utf8");
      await tx.exec(text);
      await tx.query("INSERT INTO pms_migrations (id) VALUES ($1)", [file]);
      applied.push(file);
    }
    return applied;
  });
}
