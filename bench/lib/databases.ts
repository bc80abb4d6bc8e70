import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * Throw-away databases next to BENCH_DATABASE_URL: created with a random name, dropped WITH (FORCE)
 * at the end, so leftover connections of a killed child cannot keep one alive.
 */
export interface Databases {
  /** A fresh empty database; the suffix tells what it is for. Returns its URL. */
  create(suffix: string): Promise<string>;
  dropAll(): Promise<void>;
  /**
   * Drops a step's own databases once it is done (all but the main one, `suffix` ""), so
   * autovacuum of their writes does not run during the next steps' measurements.
   */
  dropStepDatabases(): Promise<void>;
  names(): string[];
}

export function databases(adminUrl: string): Databases {
  const base = `pms_bench_${randomBytes(4).toString("hex")}`;
  const created: string[] = [];
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => {});
    }
  };
  const drop = (name: string) =>
    admin((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).catch(
      (error) => console.error(`could not drop database ${name}: ${(error as Error).message}`),
    );
  return {
    async create(suffix) {
      const name = suffix ? `${base}_${suffix}` : base;
      await admin((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropAll() {
      while (created.length > 0) await drop(created.pop()!);
    },
    async dropStepDatabases() {
      for (const name of created.filter((n) => n !== base)) {
        await drop(name);
        created.splice(created.indexOf(name), 1);
      }
    },
    names: () => [...created],
  };
}

/**
 * VACUUM (ANALYZE) of a database between a step's seeding and its measured phase: the seeding's
 * writes would otherwise be vacuumed by autovacuum in the middle of the measurement (seen as
 * 1.5x the CPU per lease status change after the create step's 20,000 events, docs/performance.md).
 */
export async function settle(url: string): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
  } finally {
    await client.end().catch(() => {});
  }
  return Math.round(performance.now() - started);
}
