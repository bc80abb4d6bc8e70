import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { areas, subjectErasures } from "./areas.ts";
import { expireLeases } from "./commands/leases/expire.ts";
import { PERSONAL_DATA } from "./events/personalData.ts";
import { ConfigError, loadConfig } from "./platform/config.ts";
import type { Sql } from "./platform/db.ts";
import { ApiError } from "./platform/errors.ts";
import { adoptLog } from "./platform/eventstore/postgres/adoptLog.ts";
import { backfillChains } from "./platform/eventstore/postgres/backfillChain.ts";
import { verifyLines } from "./platform/eventstore/verifyChain.ts";
import { PERMISSIONS, type Permission } from "./platform/http/auth.ts";
import { jobKinds } from "./platform/jobs.ts";
import { migrate } from "./platform/migrate.ts";
import { personalDataCodecOf } from "./platform/personalData/codecOf.ts";
import { encryptExistingEvents } from "./platform/personalData/migrate.ts";
import { rebuildProjection } from "./platform/projections/rebuildProjection.ts";
import {
  ALL_PERMISSIONS,
  createApiKey,
  createTenant,
  findTenant,
  listApiKeys,
  revokeApiKey,
} from "./platform/tenants/tenants.ts";
import { openDatabase, openEventStore, type Role } from "./service.ts";

const usage = `pms: property management service

  pms serve [--role api|projector|worker|all]...   run roles (default all)
  pms tenants create <name>
  pms keys create --tenant <id|name> [--name <name>] [--permissions P1,P2]
  pms keys list [--tenant <id|name>]
  pms keys revoke <key id>
  pms projections rebuild <name>
  pms projections list
  pms log adopt                                       after restoring the log from another PostgreSQL server (stop every role first)
  pms privacy encrypt-existing [--batch N]            encrypt the personal fields of events written before encryption (PostgreSQL log; resumable)
  pms leases expire [--date YYYY-MM-DD]               expire ACTIVE leases past their end_date (also daily, by the worker)
  pms jobs list                                       the kinds of background job (pg-boss queues)
  pms jobs run <queue> [--data JSON] [--tenant <id>]  run one job here, now (not through pg-boss)
  pms openapi                                         print the OpenAPI document (no database needed)
  pms audit verify FILE                               check a history.ndjson export offline (exit 1 naming the first bad event)
  pms audit backfill                                  chain the events written before the hash chain (resumable)

Permissions: ${PERMISSIONS.join(", ")}`;

async function main(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv;
  if (!group || group === "help" || group === "--help") {
    console.log(usage);
    return 0;
  }
  if (group === "serve") {
    const { values } = parseArgs({
      args: argv.slice(1),
      options: { role: { type: "string", multiple: true } },
    });
    const asked = (values.role ?? ["all"]).flatMap((r) => r.split(","));
    const roles = asked.includes("all") ? ["api", "projector", "worker"] : asked;
    const bad = roles.find((r) => !["api", "projector", "worker"].includes(r));
    if (bad) {
      console.error(`Unknown role ${bad}: use api, projector, worker or all`);
      return 2;
    }
    const { serve } = await import("./main.ts");
    await serve(roles as Role[]);
    return -1;
  }
  if (group === "openapi" && !action) {
    const { openapiDocument } = await import("./platform/http/openapiDocument.ts");
    process.stdout.write(`${JSON.stringify(await openapiDocument(areas), null, 2)}\n`);
    return 0;
  }
  if (group === "audit" && action === "verify") return verifyExport(rest[0]);
  const config = loadConfig();
  // Beside a running service on the same data directory, through its embedded server.
  const sql = await openDatabase(config, { join: true });
  try {
    await migrate(sql);
    if (group === "tenants" && action === "create" && rest[0]) {
      console.log(JSON.stringify(await createTenant(sql, rest[0]), null, 2));
      return 0;
    }
    if (group === "keys") {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { tenant: { type: "string" }, name: { type: "string" }, permissions: { type: "string" } },
      });
      if (action === "create") {
        const tenant = values.tenant ? await findTenant(sql, values.tenant) : null;
        if (!tenant) {
          console.error(`Unknown tenant ${values.tenant ?? "(none given: --tenant)"}`);
          return 2;
        }
        const permissions = values.permissions ? values.permissions.split(",") : [...ALL_PERMISSIONS];
        const bad = permissions.find((p) => !(PERMISSIONS as readonly string[]).includes(p));
        if (bad) {
          console.error(`Unknown permission ${bad}`);
          return 2;
        }
        const key = await createApiKey(sql, tenant.id, values.name ?? "cli key", permissions as Permission[]);
        console.log(JSON.stringify(key, null, 2));
        return 0;
      }
      if (action === "list") {
        const tenant = values.tenant ? await findTenant(sql, values.tenant) : null;
        if (values.tenant && !tenant) {
          console.error(`Unknown tenant ${values.tenant}`);
          return 2;
        }
        console.log(JSON.stringify(await listApiKeys(sql, tenant?.id), null, 2));
        return 0;
      }
      if (action === "revoke" && positionals[0]) {
        if (!(await revokeApiKey(sql, positionals[0]).catch(() => false))) {
          console.error(`Unknown key ${positionals[0]}`);
          return 2;
        }
        console.log(`Revoked ${positionals[0]}`);
        return 0;
      }
    }
    if (group === "projections") {
      const projections = areas.flatMap((a) => a.projections);
      if (action === "list") {
        for (const p of projections) console.log(`${p.name} v${p.version}`);
        return 0;
      }
      if (action === "rebuild" && rest[0]) {
        const projection = projections.find((p) => p.name === rest[0]);
        if (!projection) {
          console.error(`Unknown projection ${rest[0]}; known: ${projections.map((p) => p.name).join(", ")}`);
          return 2;
        }
        const store = await openEventStore(config, sql);
        const result = await rebuildProjection(sql, store, projection, console.log);
        await store.close();
        console.log(`Rebuilt ${projection.name}: ${result.events} events`);
        return 0;
      }
    }
    if (group === "log" && action === "adopt") {
      // docs/operations.md, "Backup and restore": the log of another server made readable here.
      const adopted = await adoptLog(sql);
      console.log(
        adopted.events === 0 && !adopted.sequence_moved
          ? "The event log is this server's already: nothing changed."
          : `Adopted the restored log: ${adopted.events} event(s) reordered by position${adopted.sequence_moved ? ", position sequence moved up" : ""}, ${adopted.checkpoints_reset} checkpoint(s) deleted (the projector rebuilds them at its next start).`,
      );
      return 0;
    }
    if (group === "privacy" && action === "encrypt-existing") {
      // docs/personal-data.md, "Events written before encryption".
      const { values } = parseArgs({ args: rest, options: { batch: { type: "string" } } });
      const batch = values.batch === undefined ? 500 : Number(values.batch);
      if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) {
        console.error("--batch must be a whole number from 1 to 100000");
        return 2;
      }
      if (config.EVENTSTORE_URL) {
        console.error(
          "encrypt-existing rewrites the PostgreSQL events table; EventStoreDB events cannot be rewritten (docs/personal-data.md)",
        );
        return 2;
      }
      const codec = personalDataCodecOf(config, sql, PERSONAL_DATA);
      const run = await encryptExistingEvents(sql, codec, {
        categories: Object.keys(PERSONAL_DATA),
        batch,
        log: console.log,
      });
      await codec.keyring.close();
      console.log(
        `Encrypted ${run.encrypted} of ${run.scanned} event(s) scanned; checkpoint at position ${run.last_position}.`,
      );
      return 0;
    }
    if (group === "leases" && action === "expire") {
      const { values } = parseArgs({ args: rest, options: { date: { type: "string" } } });
      if (values.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) {
        console.error("--date must be YYYY-MM-DD");
        return 2;
      }
      const store = await openEventStore(config, sql);
      const { expired, renewed } = await expireLeases({ sql, store }, values.date);
      await store.close();
      console.log(`Expired ${expired.length} lease(s)${expired.length ? `: ${expired.join(", ")}` : ""}`);
      console.log(`Renewed ${renewed.length} lease(s)${renewed.length ? `: ${renewed.join(", ")}` : ""}`);
      return 0;
    }
    if (group === "audit" && action === "backfill") {
      // docs/audit.md, "Backfill": stream by stream, safe beside the service, resumable.
      const chained = await backfillChains(sql, { progress: (n) => console.log(`chained ${n} event(s)`) });
      console.log(`Backfill done: ${chained} event(s) chained; none left unchained.`);
      return 0;
    }
    if (group === "jobs" && (action === "list" || (action === "run" && rest[0]))) {
      return await jobs(config, sql, action, rest);
    }
    console.error(usage);
    return 2;
  } finally {
    await sql.close();
  }
}

/** `pms jobs list|run`: the worker's jobs, run in this process with the job's own input check. */
async function jobs(config: ReturnType<typeof loadConfig>, sql: Sql, action: string, rest: string[]) {
  const kinds = jobKinds(
    areas.flatMap((a) => a.projections),
    areas.flatMap((a) => a.jobs ?? []),
    console.log,
  );
  if (action === "list") {
    for (const k of kinds)
      console.log(`${k.queue}${k.cron ? ` (cron ${k.cron} UTC)` : ""}: ${k.description}`);
    return 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { data: { type: "string" }, tenant: { type: "string" } },
  });
  const kind = kinds.find((k) => k.queue === positionals[0]);
  if (!kind) {
    console.error(`Unknown job ${positionals[0]}; known: ${kinds.map((k) => k.queue).join(", ")}`);
    return 2;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(values.data ?? "{}");
  } catch {
    console.error("--data must be JSON");
    return 2;
  }
  const parsed = kind.input ? kind.input.safeParse(raw) : { success: true as const, data: raw };
  if (!parsed.success) {
    console.error(
      `Invalid --data: ${parsed.error.issues.map((i) => `${i.path.join(".") || "data"} ${i.message}`).join("; ")}`,
    );
    return 2;
  }
  try {
    kind.admit?.(parsed.data);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(error.message);
    return 2;
  }
  const store = await openEventStore(config, sql);
  try {
    const output = await kind.run({ sql, store, erasures: subjectErasures() }, parsed.data, {
      tenant_id: values.tenant ?? null,
    });
    console.log(JSON.stringify(output ?? null, null, 2));
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    console.error(error instanceof ConfigError ? error.message : `Error: ${(error as Error).message}`);
    process.exit(1);
  },
);

/** `pms audit verify FILE` (docs/audit.md): 0 when every line holds, 1 naming the first that does not, 2 unreadable. */
async function verifyExport(file: string | undefined): Promise<number> {
  if (!file) {
    console.error("pms audit verify FILE: name the history.ndjson export to check");
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    console.error(`Cannot read ${file}: ${(error as Error).message}`);
    return 2;
  }
  const verdict = verifyLines(text.split("\n"));
  if (!verdict.ok && verdict.failure) {
    const f = verdict.failure;
    const event = f.event_id ? `event ${f.event_id}` : "a line";
    const where = f.stream_name ? ` (stream ${f.stream_name}, revision ${f.stream_revision})` : "";
    console.error(`FAILED at line ${f.line}: ${event}${where}: ${f.reason}`);
    return 1;
  }
  console.log(`OK: ${verdict.events} event(s) in ${verdict.streams} stream(s), every hash and link holds.`);
  for (const p of verdict.proofs)
    console.log(
      `Proof: ${p.stream_name} at revision ${p.stream_revision} is under the root ${p.root} of ${p.day}; compare it with GET /api/audit/roots?date=${p.day}`,
    );
  if (verdict.proofs.length === 0) console.log("No proof line: no stream head is under a daily root yet.");
  return 0;
}
