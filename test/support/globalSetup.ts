import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDataDirectory, startEmbeddedPostgres } from "../../src/platform/startEmbeddedPostgres.ts";

/**
 * Without TEST_DATABASE_URL, the suite runs on an embedded PostgreSQL started here (the same server
 * `npm start` runs), so a bare machine tests on real PostgreSQL. Workers inherit the variable.
 * The directory stays 0700 (mkdtemp's): as root, the server's cluster is relocated where its
 * `postgres` user can reach it (docs/operations.md), as it is for a project in /root.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "pms-test-pg-"));
  // Suites run in parallel, each with its pools, listeners and lock sessions.
  const server = await startEmbeddedPostgres(dir, {
    maxConnections: 300,
    serverDir: process.env.PMS_SERVER_DIR || undefined,
  });
  process.env.TEST_DATABASE_URL = server.url;
  return async () => {
    await server.stop();
    await removeDataDirectory(dir);
  };
}
