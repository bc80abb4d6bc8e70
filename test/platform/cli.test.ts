import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { areas } from "../../src/areas.ts";
import { loadConfig } from "../../src/platform/config.ts";
import type { Sql } from "../../src/platform/db.ts";
import { PERMISSIONS } from "../../src/platform/http/auth.ts";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { openDatabase } from "../../src/service.ts";
import { type PlatformApp, startPlatformApp } from "../support/platformApp.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

const run = promisify(execFile);

/** `pms <args>` as `node src/cli.ts` runs it (one process, faster than through npm). */
async function pms(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !["DATABASE_URL", "EVENTSTORE_URL", "PMS_DATA_DIR", "PMS_ADMIN_API_KEY"].includes(k),
    ),
  );
  try {
    const { stdout, stderr } = await run(process.execPath, ["src/cli.ts", ...args], {
      env: { ...clean, LOG_LEVEL: "silent", ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe.runIf(process.env.TEST_DATABASE_URL)("pms CLI against PostgreSQL", () => {
  let db: { sql: Sql; url?: string; drop(): Promise<void> };
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    env = { DATABASE_URL: db.url! };
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("creates, lists (without secrets) and revokes keys; a revoked key stops working", async () => {
    const tenant = await pms(["tenants", "create", "cli-acme"], env);
    expect(tenant.code, tenant.stderr).toBe(0);
    const tenantId = JSON.parse(tenant.stdout).id;

    const created = await pms(
      [
        "keys",
        "create",
        "--tenant",
        "cli-acme",
        "--name",
        "ci",
        "--permissions",
        "PropertiesRead,LesseeRead",
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.key).toMatch(/^pms_[A-Za-z0-9_-]{20,}$/);
    expect(key.tenant_id).toBe(tenantId);
    expect(key.permissions).toEqual(["PropertiesRead", "LesseeRead"]);
    const [stored] = await db.sql.query("SELECT * FROM api_keys WHERE id = $1", [key.id]);
    expect(JSON.stringify(stored)).not.toContain(key.key.slice(4));

    // By tenant id too, every permission by default.
    const all = await pms(["keys", "create", "--tenant", tenantId], env);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout).permissions).toEqual([...PERMISSIONS]);

    const list = await pms(["keys", "list", "--tenant", "cli-acme"], env);
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(list.stdout).not.toContain(key.key.slice(4));
    for (const k of listed) expect(k.key).toBeUndefined();

    // The key works on a running service, until revoked.
    const service: PlatformApp = await startPlatformApp("postgres", {
      database: { sql: db.sql, url: db.url },
    });
    try {
      const as = { id: tenantId, key: key.key };
      expect((await service.request("GET", "/api/widgets", { as })).statusCode).toBe(200);
      const revoked = await pms(["keys", "revoke", key.id], env);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(key.id);
      await sleep(1100);
      expect((await service.request("GET", "/api/widgets", { as })).statusCode).toBe(401);
    } finally {
      await service.close();
    }
    const after = JSON.parse((await pms(["keys", "list", "--tenant", tenantId], env)).stdout);
    expect(after.find((k: { id: string }) => k.id === key.id).revoked_at).toBeTruthy();
  }, 120_000);

  it("refuses unknown tenants, permissions and keys with a non-zero exit", async () => {
    const [noTenant, badPermission, noKey, usage] = await Promise.all([
      pms(["keys", "create", "--tenant", "nobody"], env),
      pms(["keys", "create", "--tenant", "cli-acme", "--permissions", "Root"], env),
      pms(["keys", "revoke", "00000000-0000-4000-8000-000000000000"], env),
      pms(["keys", "frobnicate"], env),
    ]);
    expect(noTenant.code).not.toBe(0);
    expect(noTenant.stderr).toContain("nobody");
    expect(badPermission.code).not.toBe(0);
    expect(badPermission.stderr).toContain("Root");
    expect(noKey.code).not.toBe(0);
    expect(usage.code).not.toBe(0);
  }, 120_000);

  it("lists projections", async () => {
    const res = await pms(["projections", "list"], env);
    expect(res.code, res.stderr).toBe(0);
    for (const line of res.stdout.trim().split("\n").filter(Boolean)) expect(line).toMatch(/^\S+ v\d+/);
  }, 60_000);

  it("adopts a log restored from another server; other commands refuse it until then", async () => {
    await db.sql.query(
      `INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, transaction_id)
       VALUES (gen_random_uuid(), 'cli-restored', 0, 'Restored', '{}', '{}',
               (pg_current_xact_id()::text::numeric + 1000000)::text::xid8)`,
    );
    // Few processes: each start costs seconds on a loaded machine (idempotence: restoredLog.test.ts).
    const refused = await pms(["projections", "rebuild", areas.flatMap((a) => a.projections)[0].name], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("pms log adopt");
    const adopted = await pms(["log", "adopt"], env);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain("Adopted the restored log: 1 event(s)");
    expect((await pms(["log", "adopt"], env)).stdout).toContain("nothing changed");
  }, 180_000);

  it("lists the job kinds and runs one with its input checked", async () => {
    // A fresh database has no read model yet: the rebuild builds `leases`, which expiry reads.
    const rebuild = await pms(
      ["jobs", "run", "projection-rebuild", "--data", '{"projection":"leases"}'],
      env,
    );
    // Few processes: each start is slow on a loaded machine. The route tests cover the inputs.
    const [list, expiry, unknownProjection] = await Promise.all([
      pms(["jobs", "list"], env),
      pms(["jobs", "run", "lease-expiry"], env),
      pms(["jobs", "run", "projection-rebuild", "--data", '{"projection":"nope"}'], env),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("projection-rebuild: ");
    expect(list.stdout).toContain("lease-expiry (cron 5 0 * * * UTC): ");
    expect(rebuild.code, rebuild.stderr).toBe(0);
    expect(rebuild.stdout).toContain('"projection": "leases"');
    expect(expiry.code, expiry.stderr).toBe(0);
    expect(JSON.parse(expiry.stdout)).toEqual({ expired: 0, renewed: 0 });
    expect(unknownProjection.code).toBe(2);
    expect(unknownProjection.stderr).toContain("Projection nope not found");
  }, 180_000);
});

describe("pms CLI offline on embedded storage", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pms-cli-"));
  });
  afterAll(async () => {
    await removeDataDirectory(dir);
  });

  it("creates a tenant and a key in the data directory", async () => {
    const env = { PMS_DATA_DIR: dir };
    const tenant = await pms(["tenants", "create", "offline"], env);
    expect(tenant.code, tenant.stderr).toBe(0);
    const created = await pms(["keys", "create", "--tenant", "offline", "--permissions", "LeasesRead"], env);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.key).toMatch(/^pms_/);
    // The data outlives the CLI's own server: a new one on the same directory reads it.
    const sql = await openDatabase(loadConfig({ PMS_DATA_DIR: dir }));
    try {
      const rows = await sql.query("SELECT id, permissions, key_hash FROM api_keys");
      expect(rows).toEqual([{ id: key.id, permissions: ["LeasesRead"], key_hash: expect.any(String) }]);
      expect(rows[0].key_hash).not.toContain(key.key.slice(4));
    } finally {
      await sql.close();
    }
  }, 120_000);
});
