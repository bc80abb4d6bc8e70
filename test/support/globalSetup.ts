import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres } from "../../src/platform/startEmbeddedPostgres.ts";

/**
 * Without TEST_DATABASE_URL, the suite runs on an embedded PostgreSQL started here (the same server
 * `npm start` runs), so a bare machine tests on real PostgreSQL. Workers inherit the variable.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "pms-test-pg-"));
  // As root the server runs as the `postgres` user, which must reach its directory.
  await chmod(dir, 0o755);
  // Suites run in parallel, each with its pools, listeners and lock sessions.
  const server = await startEmbeddedPostgres(dir, { maxConnections: 300 });
  process.env.TEST_DATABASE_URL = server.url;
  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
