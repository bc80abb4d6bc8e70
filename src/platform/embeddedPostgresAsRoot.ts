import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, readFile, readlink, realpath, rename, rm, stat, symlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * The embedded PostgreSQL when the service runs as root (startEmbeddedPostgres.ts): the server
 * runs as the `postgres` OS user, from places that user can reach (binaries and clusters copied
 * or relocated under PMS_SERVER_DIR, docs/operations.md, "Embedded mode").
 */

const run = promisify(execFile);

export interface Binaries {
  initdb: string;
  postgres: string;
}

export const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` OS user (created if missing). */
export async function serverUser(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const ids = async () => ({
    uid: Number((await run("id", ["-u", "postgres"])).stdout.trim()),
    gid: Number((await run("id", ["-g", "postgres"])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run("groupadd", ["--system", "postgres"]).catch(() => {});
    await run("useradd", ["--system", "--gid", "postgres", "--no-create-home", "postgres"]);
    return ids();
  }
}

/** Whether the server's OS user can enter `path` (a directory) or run it (a file). */
async function reachableBy(user: { uid: number; gid: number }, path: string): Promise<boolean> {
  return run("test", ["-x", path], user).then(
    () => true,
    () => false,
  );
}

/** The default of PMS_SERVER_DIR (docs/operations.md, "Embedded mode"). */
export const SERVER_DIR = "/var/lib/pms";

/**
 * As root, `serverDir` holds what the `postgres` OS user must reach and the project may keep from
 * it (a home directory like /root/pms, a 0700 folder): the binaries' copy and relocated clusters.
 * Root-owned, 0755: that user may enter it, never write into it (only into its own clusters).
 */
async function serverHome(user: { uid: number; gid: number }, serverDir: string): Promise<string> {
  const dir = resolve(serverDir);
  // Explicitly 0755 when made here: a umask of 077 would keep `postgres` out.
  if (await mkdir(dir, { recursive: true })) await chmod(dir, 0o755);
  if (!(await reachableBy(user, dir))) {
    throw new Error(
      `the embedded PostgreSQL runs as OS user postgres (this service runs as root) and cannot enter ${dir}: set PMS_SERVER_DIR to a directory it can enter`,
    );
  }
  return dir;
}

/**
 * As root, the binaries in node_modules may be out of the `postgres` user's reach: they are then
 * run from a copy under `serverDir`, made once per package version (into a side directory,
 * renamed when complete, so concurrent starts and interrupted copies leave no half copy).
 */
export async function reachableBinaries(
  bin: Binaries,
  user: { uid: number; gid: number },
  serverDir: string,
): Promise<Binaries> {
  if ((await reachableBy(user, bin.postgres)) && (await reachableBy(user, bin.initdb))) return bin;
  const native = join(dirname(bin.postgres), "..");
  const { name, version } = JSON.parse(await readFile(join(native, "..", "package.json"), "utf8"));
  const copy = join(await serverHome(user, serverDir), `${String(name).replace("/", "+")}-${version}`);
  const copied = { initdb: join(copy, "bin", "initdb"), postgres: join(copy, "bin", "postgres") };
  if (!(await exists(copied.postgres))) {
    const partial = `${copy}.${process.pid}.partial`;
    await rm(partial, { recursive: true, force: true });
    await cp(native, partial, { recursive: true, verbatimSymlinks: true });
    await chmod(partial, 0o755);
    await rename(partial, copy).catch(async (error) => {
      await rm(partial, { recursive: true, force: true });
      if (!(await exists(copied.postgres))) throw error; // else another start copied it first
    });
  }
  if (!(await reachableBy(user, copied.postgres))) {
    throw new Error(`the PostgreSQL binaries copied to ${copy} cannot be run by OS user postgres`);
  }
  return copied;
}

/**
 * Where the cluster (`postgres/`) and its socket (`run/`) live: the data directory itself, or, as
 * root when the `postgres` user cannot enter it, `<serverDir>/<name>-<hash of its path>`, with the
 * links `postgres` and `run` in the data directory pointing there (found again on the next start).
 * The data directory's own permissions are never changed.
 */
export async function clusterHome(
  root: string,
  user: { uid: number; gid: number } | null,
  serverDir: string,
): Promise<string> {
  if (!user) return root;
  const link = join(root, "postgres");
  const linked = await readlink(link).catch(() => null);
  if (linked) return dirname(resolve(root, linked));
  if (await reachableBy(user, root)) return root;
  if (await exists(link)) {
    throw new Error(
      `the embedded PostgreSQL runs as OS user postgres (this service runs as root) and cannot enter ${root}, which holds a cluster: move ${link} to a directory it can enter and link it there, or run as another user`,
    );
  }
  const real = await realpath(root);
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 12);
  const home = join(await serverHome(user, serverDir), `${basename(real)}-${hash}`);
  await mkdir(home, { recursive: true });
  await chmod(home, 0o755);
  await rm(join(root, "run"), { recursive: true, force: true });
  await symlink(join(home, "run"), join(root, "run"));
  await symlink(join(home, "postgres"), link);
  return home;
}
