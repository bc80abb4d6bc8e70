import pg from "pg";
import { advisoryLocks, connectionSql } from "./dbConnection.ts";
import { configOf, forgetStatement, isConnectionError, lastRows, queryOn, staleIn } from "./dbStatements.ts";

export { HeldStatementsError, inlined } from "./dbStatements.ts";

/**
 * The one small SQL interface every part of the service uses, over a PostgreSQL server through a
 * `pg` pool (an external server, or the embedded one the service starts: docs/operations.md).
 */
export interface Sql {
  /**
   * `prepare`: a hot statement of fixed text, run as a named prepared statement so each
   * connection parses it once and PostgreSQL may keep its plan (docs/performance.md).
   */
  query<T = any>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
  /** Clients of each connection pool, for metrics (absent where there is no pool). */
  poolStats?(): Record<string, { total: number; idle: number; waiting: number }>;
  /** Runs a script of several statements, without parameters. */
  exec(text: string): Promise<any[]>;
  /**
   * Runs `COPY ... FROM STDIN` fed with `chunks` (text format, already escaped): the bulk load of
   * a rebuild (docs/performance.md). Only on a transaction's connection.
   */
  copyFrom?(statement: string, chunks: Iterable<string>): Promise<void>;
  /** Runs fn in one transaction; nested calls join the outer one. */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Reads as the restricted `pms_reader` role, row-level security bound to the tenant. */
  asTenant<T>(tenantId: string, fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** LISTEN on a channel, on a connection of its own. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * A pool of its own on the same server, closed by the caller: for a loop that must not queue
   * behind request traffic for a connection (the projector, docs/performance.md).
   */
  dedicated?(max: number): Sql;
  /** A session-level advisory lock held until released (one projector instance at a time). */
  tryLock(name: string): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Statements held and sent together (docs/performance.md, "Projector round trips"): BEGIN goes
   * with the first statement, `deferred` writes with the next statement or with COMMIT, each group
   * as one simple-protocol script with its parameters inlined as literals. A batch of the
   * projector costs a few round trips instead of one per statement. An error in a group that held
   * deferred writes is a `HeldStatementsError`: it cannot say which statement failed. A statement
   * sent with held ones goes inlined too (a `prepare` one then loses its plan), so every text run
   * in such a transaction must hold `$n` only as parameters. Not inlined, and so run at once after
   * the held ones with an error of its own: a statement whose parameters are large
   * (`tooLargeToInline`) or that asks for `arrays`.
   */
  batched?: boolean;
}

export interface QueryOptions {
  prepare?: boolean;
  /**
   * A write whose answer the caller does not read: in a `batched` transaction it is held and sent
   * with the next statement or with COMMIT (unless too large to inline); elsewhere it runs at once.
   */
  deferred?: boolean;
  /** Rows as arrays of values in select order: no object per row (the rebuild's log read). */
  arrays?: boolean;
}

// Amounts are numeric in SQL and plain numbers in JSON; dates stay YYYY-MM-DD strings.
const NUMERIC = 1700;
const INT8 = 20;
const DATE = 1082;
pg.types.setTypeParser(NUMERIC, (v) => Number.parseFloat(v));
pg.types.setTypeParser(INT8, (v) => Number(v));
pg.types.setTypeParser(DATE, (v) => v);

export function createPostgresSql(connectionString: string, options: { max?: number } = {}): Sql {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 20 });
  // A reader connection is set once to the restricted role; the tenant setting is cached per client.
  // Reader connections start as the restricted role (a startup option, so before any query);
  // the tenant setting is cached per client.
  const readerPool = new pg.Pool({ connectionString, max: options.max ?? 20, options: "-c role=pms_reader" });
  pool.on("error", () => {});
  readerPool.on("error", () => {});
  // A connection lost while checked out (a prepared query, a transaction) emits 'error' where the
  // pool listens only on idle ones: unheard, it would crash the process. Its query fails anyway.
  for (const p of [pool, readerPool]) p.on("connect", (client) => client.on("error", () => {}));
  const tenantOf = new WeakMap<pg.PoolClient, string>();
  const locks = advisoryLocks(connectionString);

  // A reader connection's view has no state of its own: one per connection, not one per read
  // (asTenant runs on every read request). Not for transactions, whose view is their identity.
  const readerViews = new WeakMap<pg.PoolClient, Sql>();
  const readerView = (client: pg.PoolClient): Sql => {
    let view = readerViews.get(client);
    if (!view) {
      view = connectionSql(client);
      readerViews.set(client, view);
    }
    return view;
  };

  return {
    tryLock: locks.tryLock,
    async query(text, params, options) {
      if (!options?.prepare) return (await pool.query(configOf(text, params, options))).rows;
      const client = await pool.connect();
      let broken = false;
      try {
        return await queryOn(client, text, params, options);
      } catch (error) {
        broken = isConnectionError(error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    dedicated: (max) => createPostgresSql(connectionString, { max }),
    poolStats: () => ({
      writer: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount },
      reader: { total: readerPool.totalCount, idle: readerPool.idleCount, waiting: readerPool.waitingCount },
    }),
    exec: async (text) => lastRows(await pool.query(text)),
    async transaction(fn, options) {
      const client = await pool.connect();
      const held = options?.batched ? ["BEGIN"] : null;
      try {
        if (!held) await client.query("BEGIN");
        // A fresh view per transaction: its identity is the transaction's (bulkLoad.ts keys on it).
        const tx = connectionSql(client, held);
        const result = await fn(tx);
        // Batched, COMMIT goes with the statements still held.
        await tx.exec("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        for (const name of staleIn.get(client) ?? []) await forgetStatement(client, name);
        staleIn.delete(client);
        throw error;
      } finally {
        client.release();
      }
    },
    async asTenant(tenantId, fn) {
      const client = await readerPool.connect();
      let broken = false;
      try {
        if (tenantOf.get(client) !== tenantId) {
          await client.query("SELECT set_config('pms.tenant_id', $1, false)", [tenantId]);
          tenantOf.set(client, tenantId);
        }
        return await fn(readerView(client));
      } catch (error) {
        broken = isConnectionError(error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async listen(channel, onNotify) {
      const client = new pg.Client({ connectionString });
      client.on("error", () => {});
      await client.connect();
      client.on("notification", (msg) => {
        if (msg.channel === channel) onNotify(msg.payload ?? "");
      });
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.end().catch(() => {});
      };
    },
    async close() {
      await Promise.allSettled([pool.end(), readerPool.end(), locks.close()]);
    },
  };
}

/** The shortest gap between two NOTIFY of one notifier (docs/decisions.md, "NOTIFY at most every 5 ms"). */
const NOTIFY_GAP_MS = 5;

/**
 * A NOTIFY sent after the caller's commit, coalesced: at most one in flight and at most one per
 * `NOTIFY_GAP_MS`, and one more after it when called meanwhile, so every call is followed by a
 * notification sent after it, at most `NOTIFY_GAP_MS` plus one round trip later. A NOTIFY inside a
 * writing transaction would hold PostgreSQL's global notify lock through that transaction's
 * commit and WAL flush, serializing every such commit (appends: about 5x fewer per second). The
 * gap keeps it from costing a statement per append under load (docs/performance.md); this
 * process's own listeners are woken in process, without it.
 */
export function notifier(sql: Sql, channel: string, payload = ""): () => void {
  let inFlight = false;
  let again = false;
  let lastSent = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | null = null;
  const send = () => {
    timer = null;
    inFlight = true;
    again = false;
    lastSent = performance.now();
    sql
      .query("SELECT pg_notify($1, $2)", [channel, payload], { prepare: true })
      .catch(() => {})
      .finally(() => {
        inFlight = false;
        if (again) schedule();
      });
  };
  const schedule = () => {
    if (timer) return;
    const wait = lastSent + NOTIFY_GAP_MS - performance.now();
    if (wait <= 0) send();
    else {
      timer = setTimeout(send, wait);
      // A pending wake-up must not keep a stopping process alive.
      timer.unref();
    }
  };
  return () => {
    if (inFlight) again = true;
    else schedule();
  };
}

/**
 * The database cannot take the request now (docs/decisions.md, "503 when the database is
 * unavailable"): out of connections or resources (SQLSTATE class 53), shutting down or starting
 * (57P01–57P03), a lost connection (class 08), a pool wait that timed out, or a refused or reset
 * socket. Nothing was written that the client must know of: a command that failed so appended
 * nothing, or its append is already durable and a retry with the same Idempotency-Key replays it.
 */
export function isDatabaseUnavailable(error: { code?: unknown; message?: string }): boolean {
  const code = typeof error.code === "string" ? error.code : "";
  if (/^(53|08)[0-9A-Z]{3}$/.test(code) || code === "57P01" || code === "57P02" || code === "57P03")
    return true;
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ETIMEDOUT" || code === "EPIPE")
    return true;
  return /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error/i.test(
    error.message ?? "",
  );
}
