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
      while (created.length > 0) {
        const name = created.pop()!;
        await admin((c) =>
          c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
        ).catch((error) => console.error(`could not drop database ${name}: ${(error as Error).message}`));
      }
    },
    names: () => [...created],
  };
}
