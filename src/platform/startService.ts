import type { FastifyInstance } from "fastify";
import { erasuresOf, type Wiring } from "./area.ts";
import { instrumentStore } from "./collectMetrics.ts";
import type { Config } from "./config.ts";
import { createPostgresSql, type Sql } from "./db.ts";
import type { EventStore } from "./eventstore/eventStore.ts";
import { assertLogAdopted } from "./eventstore/postgres/adoptLog.ts";
import { createPostgresEventStore } from "./eventstore/postgres/postgresEventStore.ts";
import { readAll } from "./eventstore/postgres/readAll.ts";
import { buildApp } from "./http/buildApp.ts";
import { startJobs } from "./jobs.ts";
import { createLogger } from "./log.ts";
import { migrate } from "./migrate.ts";
import { MESSAGE_CATEGORY } from "./outbox/messageEvents.ts";
import { withPersonalData } from "./personalData/codec.ts";
import { personalDataCodecOf } from "./personalData/codecOf.ts";
import { renameLegacyReservations } from "./personalData/reservationNames.ts";
import type { Platform } from "./platform.ts";
import { QUARANTINE_CATEGORY } from "./projections/quarantine.ts";
import { runProjections } from "./projections/runProjections.ts";
import { watchProjections } from "./projections/watchProjections.ts";
import { startEmbeddedPostgres } from "./startEmbeddedPostgres.ts";
import { ALL_PERMISSIONS, createApiKey, createTenant, listTenants } from "./tenants/tenants.ts";
import { startWorkerLoops } from "./workerLoops.ts";

export type Role = "api" | "projector" | "worker";

export interface Service {
  platform: Platform;
  app: FastifyInstance | null;
  /** Set on first run in embedded mode without an admin key: the printed key of tenant `default`. */
  firstRunKey: string | null;
  close(): Promise<void>;
}

/**
 * The external server of DATABASE_URL, or else a PostgreSQL server of our own under PMS_DATA_DIR
 * (docs/operations.md, "Embedded mode"), stopped when the returned `Sql` is closed. `join`: the
 * server of a service already running on that directory, if any (offline CLI commands).
 */
export async function openDatabase(config: Config, options: { join?: boolean } = {}): Promise<Sql> {
  if (config.DATABASE_URL) return createPostgresSql(config.DATABASE_URL);
  const server = await startEmbeddedPostgres(config.PMS_DATA_DIR, {
    ...options,
    serverDir: config.PMS_SERVER_DIR,
  });
  const sql = createPostgresSql(server.url);
  return {
    ...sql,
    async close() {
      await sql.close();
      await server.stop();
    },
  };
}

/**
 * The log of EVENTSTORE_URL, or else the `events` table, refused while it holds a log restored
 * from another server that `pms log adopt` has not made readable here (docs/decisions.md); personal
 * fields encrypted on the way in and decrypted on the way out (docs/personal-data.md).
 */
export async function openEventStoreWith(wiring: Wiring, config: Config, sql: Sql): Promise<EventStore> {
  return sealedLog(wiring, await openLog(wiring, config, sql), config, sql);
}

/**
 * The log with personal fields sealed; on the PostgreSQL log, the email reservations still named
 * the old way are renamed first (reservationNames.ts), for the service and the CLI alike.
 */
async function sealedLog(wiring: Wiring, log: EventStore, config: Config, sql: Sql): Promise<EventStore> {
  const store = withPersonalData(log, personalDataCodecOf(config, sql, wiring.personalData));
  if (store.pseudonym) await renameLegacyReservations(sql, store.pseudonym);
  return store;
}

async function openLog(wiring: Wiring, config: Config, sql: Sql): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    const { createEventStoreDbEventStore } = await import(
      "./eventstore/eventstoredb/eventStoreDbEventStore.ts"
    );
    // The areas' categories, and the platform's own (an operator's choices for quarantined
    // events, the outbox's messages).
    return createEventStoreDbEventStore(config.EVENTSTORE_URL, {
      categories: [...wiring.streamCategories, QUARANTINE_CATEGORY, MESSAGE_CATEGORY],
    });
  }
  await assertLogAdopted(sql);
  return createPostgresEventStore(sql);
}

/**
 * Start-up work that changes the schema (migrations, pg-boss's schema, roles), one process at a
 * time on the database: roles started together on a fresh database (`docker compose up`) otherwise
 * race on creating the same schema (a duplicate key in pg_namespace, seen at pg-boss's start). The lock
 * is a transaction's (held by one pooled connection, released at its end or if the process dies);
 * the work itself runs on other connections.
 */
async function oneAtATime<T>(sql: Sql, work: () => Promise<T>): Promise<T> {
  return sql.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('pms:start-up'))");
    return work();
  });
}

/** The projector's own pool: its batch transaction, a failing projection's retry, a rebuild's writes. */
const PROJECTOR_CONNECTIONS = 3;

export interface StartOptions {
  roles?: Role[];
  sql?: Sql;
  store?: EventStore;
  /** false: the worker role runs its jobs but not its loops (test apps that count events). */
  loops?: boolean;
  /**
   * false: personal fields stored in the clear, as before encryption. Only the bench's `privacy`
   * step starts it so, to measure what encryption costs the service; no setting reaches it.
   */
  sealPersonalData?: boolean;
}

/** Opens storage, migrates, and starts the roles asked for in this process, with the areas wired in. */
export async function startServiceWith(
  wiring: Wiring,
  config: Config,
  options: StartOptions = {},
): Promise<Service> {
  const roles = new Set<Role>(options.roles ?? ["api", "projector", "worker"]);
  const sql = options.sql ?? (await openDatabase(config));
  try {
    return await startOn(wiring, sql, config, roles, options);
  } catch (error) {
    // A failed start leaves nothing running (the embedded PostgreSQL stops too).
    if (!options.sql) await sql.close().catch(() => {});
    throw error;
  }
}

async function startOn(
  wiring: Wiring,
  sql: Sql,
  config: Config,
  roles: Set<Role>,
  options: StartOptions,
): Promise<Service> {
  const { areas } = wiring;
  const erasures = erasuresOf(areas);
  const log = createLogger(config);
  if (!config.PMS_DATA_KEY && (config.DATABASE_URL || config.EVENTSTORE_URL))
    log.warn(
      "PMS_DATA_KEY is not set: personal data is sealed with the development key (docs/personal-data.md)",
    );
  const projections = areas.flatMap((a) => a.projections);
  const logger = {
    info: (m: string) => log.info(m),
    debug: (m: string) => log.debug(m),
    error: (e: unknown, m: string) => log.error({ err: e }, m),
  };
  const { store, jobs } = await oneAtATime(sql, async () => {
    await migrate(sql);
    const opened = options.store ?? (await openLog(wiring, config, sql));
    const store = instrumentStore(
      options.sealPersonalData === false ? opened : await sealedLog(wiring, opened, config, sql),
    );
    // pg-boss creates or migrates its schema in its start.
    const jobs = await startJobs({
      sql,
      store,
      projections,
      jobs: areas.flatMap((a) => a.jobs ?? []),
      erasures,
      work: roles.has("worker"),
      log: logger,
    });
    return { store, jobs };
  });
  // The projector's transactions on connections of their own: a batch that read-your-writes
  // waits for never queues behind 32 writers for a pooled connection (docs/performance.md).
  const projectorSql = roles.has("projector") ? (sql.dedicated?.(PROJECTOR_CONNECTIONS) ?? sql) : sql;
  const runtime = roles.has("projector")
    ? runProjections({
        sql: projectorSql,
        store,
        projections,
        log: logger,
        // Its live reads on its own pool too, where the log is in this database.
        readAll:
          store.engine === "postgres"
            ? async (o) => {
                const events = await readAll(projectorSql, o);
                return store.decodeRead ? store.decodeRead(events) : events;
              }
            : undefined,
      })
    : watchProjections(sql, store, projections);
  // Serve only once the read-model tables exist, so no first request meets a missing table.
  if (roles.has("api")) await runtime.ready();
  const platform: Platform = { config, sql, store, projections: runtime, jobs, erasures };

  let firstRunKey: string | null = null;
  if (!config.DATABASE_URL && !config.PMS_ADMIN_API_KEY && (await listTenants(sql)).length === 0) {
    const tenant = await createTenant(sql, "default");
    firstRunKey = (await createApiKey(sql, tenant.id, "first-run key", ALL_PERMISSIONS)).key;
  }

  // The worker's loops (docs/architecture.md, "Worker loops"): the outbox's deliverer, reactions.
  const loops =
    roles.has("worker") && options.loops !== false
      ? await startWorkerLoops(
          areas.flatMap((a) => a.loops ?? []),
          { sql, store, config, log: logger },
        )
      : null;
  const app = roles.has("api")
    ? await buildApp(
        platform,
        areas.flatMap((a) => a.routes),
      )
    : null;
  let closed = false;
  return {
    platform,
    app,
    firstRunKey,
    async close() {
      if (closed) return;
      closed = true;
      await app?.close();
      await loops?.stop();
      await jobs.stop();
      await runtime.stop();
      if (projectorSql !== sql) await projectorSql.close();
      await store.close();
      if (!options.sql) await sql.close();
    },
  };
}
