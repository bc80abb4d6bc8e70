import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { adoptLog } from "../../src/platform/eventstore/postgres/adoptLog.ts";
import { migrate } from "../../src/platform/migrate.ts";
import { type Service, startService } from "../../src/service.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { createEmptyDatabase, databaseKinds } from "../support/testDatabase.ts";

const run = promisify(execFile);

/** The `sh` blocks of docs/operations.md's "Backup and restore" holding `word`: what an operator runs. */
async function documented(word: string): Promise<string> {
  const doc = await readFile(new URL("../../docs/operations.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Backup and restore"));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].replace(/^ +/gm, ""));
  const block = blocks.find((b) => b.includes(word));
  if (!block) throw new Error(`no sh block with ${word} in docs/operations.md`);
  return block;
}

describe.each(databaseKinds)("backup and restore as documented, on %s", (kind) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => {});
  });

  it("a restore into a fresh database reads a lessee back whole, and its next write keeps the same key", async (context) => {
    const t: TestApp = await createTestApp(kind);
    cleanups.push(() => t.close());
    // pg_dump refuses a server of a newer major: the embedded server (no pg_dump of its own) on a
    // machine whose client tools are older cannot run the recipe; TEST_DATABASE_URL's server can.
    const [server] = await t.sql.query("SELECT current_setting('server_version_num')::int / 10000 AS major");
    const client = await run("pg_dump", ["--version"]).catch(() => null);
    const major = Number(client?.stdout.match(/(\d+)\.\d+/)?.[1] ?? 0);
    if (major < server.major)
      context.skip(`pg_dump ${major || "absent"} cannot dump a PostgreSQL ${server.major} server`);
    const body = {
      category: "individual",
      first_name: "Marie",
      last_name: "Curie",
      email: "marie.backup@example.fr",
      mobile_phone: "+33612345678",
    };
    const created = await t.request("POST", "/api/lessees", { body });
    expect(created.statusCode, created.body).toBe(201);
    const lessee = created.json();
    expect(lessee).toMatchObject(body);
    // The personal fields are sealed in the log, not plain.
    const [stored] = await t.sql.query("SELECT data::text FROM events WHERE stream_name = $1", [
      `lessee-${lessee.id}`,
    ]);
    expect(stored.data).not.toContain("Curie");

    // The documented backup, taken while the service runs, and the documented restore.
    const dir = await mkdtemp(join(tmpdir(), "pms-backup-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const source = (t.service.platform.config as { DATABASE_URL?: string }).DATABASE_URL!;
    const target = await createEmptyDatabase();
    cleanups.push(() => target.drop());
    const shell = (script: string, url: string) =>
      run("bash", ["-euo", "pipefail", "-c", script], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: url },
      });
    await shell(await documented("pg_dump"), source);
    // Step 2: the schema, as any offline command makes it (the migrations).
    const fresh = createPostgresSql(target.url, { max: 4 });
    await migrate(fresh);
    await shell(await documented("pg_restore"), target.url);
    await adoptLog(fresh);
    await fresh.close();

    const service: Service = await startService(
      loadConfig({
        LOG_LEVEL: "silent",
        PMS_ADMIN_API_KEY: TEST_ADMIN_KEY,
        PMS_RATE_LIMIT_PER_MINUTE: "0",
        DATABASE_URL: target.url,
      }),
      { loops: false },
    );
    cleanups.push(() => service.close());
    const app = service.app!;
    const as = { authorization: `Bearer ${t.tenant.key}` };
    await service.platform.projections.ready();
    const read = await app.inject({ method: "GET", url: `/api/lessees/${lessee.id}`, headers: as });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject(body);

    // The next write uses the restored key: the whole history stays readable, one key only.
    const updated = await app.inject({
      method: "PUT",
      url: `/api/lessees/${lessee.id}`,
      headers: { ...as, "content-type": "application/json" },
      payload: JSON.stringify({ mobile_phone: "+33698765432" }),
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ ...body, mobile_phone: "+33698765432" });
    const keys = await service.platform.sql.query(
      "SELECT count(*)::int AS n FROM personal_data_keys WHERE subject = $1",
      [`lessee-${lessee.id}`],
    );
    expect(keys[0].n).toBe(1);
    const history = await app.inject({
      method: "GET",
      url: `/api/lessees/${lessee.id}/history`,
      headers: as,
    });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json()[0].data).toMatchObject({ last_name: "Curie" });
  }, 120_000);
});
