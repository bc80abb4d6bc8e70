import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { freePort } from "../support/freePort.ts";

/**
 * The service as README, Dockerfile and compose start it, in embedded mode (no DATABASE_URL): one
 * process that a signal stops cleanly, its own PostgreSQL under PMS_DATA_DIR (docs/operations.md).
 */

interface Started {
  proc: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.on("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(HOST|PORT|DATABASE_URL|EVENTSTORE_URL|PMS_.*|LOG_LEVEL|TEST_DATABASE_URL)$/.test(k),
    ),
  );

function start(command: string[], dataDir: string, port: number): Started {
  const proc = spawn(command[0], command.slice(1), {
    env: { ...cleanEnv(), PMS_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  proc.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const exit = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return { proc, url: `http://127.0.0.1:${port}`, stdout: () => out, stderr: () => err, exit };
}

async function untilHealthy(s: Started): Promise<void> {
  const deadline = Date.now() + 90_000;
  let exited = false;
  void s.exit.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`exited during start:\n${s.stderr()}`);
    const res = await fetch(`${s.url}/api/health/ready`).catch(() => null);
    if (res?.status === 200) return;
    await sleep(200);
  }
  throw new Error(`not ready after 90 s:\n${s.stderr()}`);
}

/** Every process below `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (check()) return true;
  return check();
}

const firstRunKey = (stdout: string) => /First run:[\s\S]*?\n\s+(pms_\S+)/.exec(stdout)?.[1];

/** A signal to exactly `s.proc`: exit 0 within the bound, port free, nothing left of its tree. */
async function stopsCleanly(s: Started, port: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  const tree = descendants(s.proc.pid!);
  expect(tree.length).toBeGreaterThan(0); // the embedded PostgreSQL at least
  const t = Date.now();
  s.proc.kill(signal);
  expect(await s.exit).toBe(0);
  expect(Date.now() - t).toBeLessThan(25_000);
  expect(await portIsFree(port)).toBe(true);
  expect(await until(() => tree.every((p) => !alive(p)), 5000), `left: ${tree.filter(alive)}`).toBe(true);
}

describe("the service process in embedded mode", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "pms-serve-"));
  });
  afterAll(async () => {
    // As root, each data directory's cluster was relocated out of this 0700 directory.
    for (const dir of await readdir(root)) await removeDataDirectory(join(root, dir));
    await rm(root, { recursive: true, force: true });
  });

  it("node bin/pms.js serve: first-run key, one service per data directory, drains on SIGTERM, reuses its data", async () => {
    const dataDir = join(root, "serve");
    const port = await freePort();
    const first = start([process.execPath, "bin/pms.js", "serve"], dataDir, port);
    await untilHealthy(first);
    // Printed once listening: moments after the first healthy answer.
    await until(() => firstRunKey(first.stdout()) !== undefined, 10_000);
    const key = firstRunKey(first.stdout());
    expect(key, first.stdout()).toBeDefined();
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    // A second service on the same data directory refuses, naming the directory and the owner.
    const second = start([process.execPath, "bin/pms.js", "serve"], dataDir, await freePort());
    expect(await second.exit).not.toBe(0);
    expect(second.stderr()).toMatch(/in use by another pms process \(pid \d+\)/);
    expect(second.stderr()).toContain(dataDir);

    // The CLI beside the running service works through the service's server.
    const cli = spawnSync(process.execPath, ["bin/pms.js", "keys", "create", "--tenant", "default"], {
      env: { ...cleanEnv(), PMS_DATA_DIR: dataDir, LOG_LEVEL: "silent" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(cli.status, cli.stderr).toBe(0);
    const cliKey = JSON.parse(cli.stdout).key;
    const viaCliKey = await fetch(`${first.url}/api/lessees`, {
      headers: { authorization: `Bearer ${cliKey}` },
    });
    expect(viaCliKey.status).toBe(200);

    // Requests in flight when the signal comes are answered; none fails with a 5xx.
    const posts = Array.from({ length: 12 }, (_, n) =>
      fetch(`${first.url}/api/lessees`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          category: "individual",
          first_name: "Camille",
          last_name: `Martin ${n}`,
          email: `drain-${n}@example.fr`,
        }),
      }).then(
        async (res) => ({ status: res.status, id: ((await res.json()) as { id?: string }).id }),
        () => ({ status: 0, id: undefined }),
      ),
    );
    await sleep(30);
    await stopsCleanly(first, port);
    const answered = await Promise.all(posts);
    for (const a of answered) expect([0, 201, 202, 503]).toContain(a.status);
    const createdIds = answered.filter((a) => a.status === 201 || a.status === 202).map((a) => a.id);

    // Second start: same data, no new first-run key; the first key and the accepted writes are there.
    const again = start([process.execPath, "bin/pms.js", "serve"], dataDir, port);
    await untilHealthy(again);
    expect(again.stdout()).not.toContain("First run");
    for (const id of createdIds) {
      const res = await fetch(`${again.url}/api/lessees/${id}`, { headers: auth });
      expect(res.status).toBe(200);
    }
    expect((await fetch(`${again.url}/api/lessees`, { headers: auth })).status).toBe(200);
    await stopsCleanly(again, port);
  }, 240_000);

  it("recovers the data directory of a killed run; SIGINT stops it too", async () => {
    const dataDir = join(root, "killed");
    const port = await freePort();
    const killed = start([process.execPath, "bin/pms.js", "serve"], dataDir, port);
    await untilHealthy(killed);
    const orphans = descendants(killed.proc.pid!);
    killed.proc.kill("SIGKILL");
    await killed.exit;
    // Its PostgreSQL outlives it (detached): the next start must stop it and take over.
    expect(orphans.some(alive)).toBe(true);
    const next = start([process.execPath, "bin/pms.js", "serve"], dataDir, port);
    await untilHealthy(next);
    expect(orphans.filter(alive)).toEqual([]);
    await stopsCleanly(next, port, "SIGINT");
  }, 240_000);

  it("npm start: SIGTERM to the npm process stops the service", async () => {
    const dataDir = join(root, "npm");
    const port = await freePort();
    const npm = start(["npm", "start"], dataDir, port);
    await untilHealthy(npm);
    expect(await until(() => firstRunKey(npm.stdout()) !== undefined, 10_000)).toBe(true);
    await stopsCleanly(npm, port);
  }, 240_000);
});
