import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFromStdin } from "pg-copy-streams";
import type { Sql } from "./db.ts";
import { HeldStatementsError, inlined, lastRows, queryOn, tooLargeToInline } from "./dbStatements.ts";

/**
 * The Sql of one checked-out connection: a transaction's, or a reader's. `held`: the statements
 * a batched transaction holds (else null: every statement at once; TransactionOptions.batched).
 */
export function connectionSql(client: pg.PoolClient, held: string[] | null = null): Sql {
  /** Sends the held statements, then `last` (already inlined), as one script. */
  const sendHeld = async (last: string | null) => {
    const deferredWrites = held!.some((s) => s !== "BEGIN");
    const script = [...held!.splice(0), ...(last === null ? [] : [last])].join(";\n");
    try {
      return lastRows(await client.query(script));
    } catch (error) {
      throw deferredWrites ? new HeldStatementsError(error) : error;
    }
  };
  const sql: Sql = {
    query: async (text, params, options) => {
      // Large parameters are not inlined: escaping and copying a megabyte of JSON (a live batch of
      // a thousand events) costs more than the round trip it saves. Held ones go first.
      const inline = held !== null && !options?.arrays && !tooLargeToInline(params);
      if (held && options?.deferred && inline) {
        held.push(inlined(text, params));
        return [];
      }
      if (held && held.length > 0) {
        // The statement goes with the held ones, inlined, unless it is not to be inlined.
        if (inline) return sendHeld(inlined(text, params));
        await sendHeld(null);
      }
      return queryOn(client, text, params, options);
    },
    exec: async (text) => (held && held.length > 0 ? sendHeld(text) : lastRows(await client.query(text))),
    copyFrom: async (statement, chunks) => {
      if (held && held.length > 0) await sendHeld(null);
      await pipeline(Readable.from(chunks), client.query(copyFromStdin(statement)));
    },
    transaction: (fn) => fn(sql),
    asTenant: (_tenant, fn) => fn(sql),
    listen: () => Promise.reject(new Error("listen inside a transaction")),
    tryLock: () => Promise.reject(new Error("lock inside a transaction")),
    close: async () => {},
  };
  return sql;
}

/**
 * Session-level advisory locks (one projector instance per projection), all on one connection
 * of their own, opened at the first lock and again after it is lost.
 */
export function advisoryLocks(connectionString: string) {
  let lockClient: Promise<pg.Client> | null = null;
  // One query at a time on the lock session (pg refuses to pipeline on one client).
  let lockQueue: Promise<unknown> = Promise.resolve();
  const onLockSession = <T>(run: () => Promise<T>): Promise<T> => {
    const next = lockQueue.then(run, run);
    lockQueue = next.catch(() => {});
    return next;
  };
  const lockSession = () => {
    if (!lockClient) {
      const client = new pg.Client({ connectionString });
      client.on("error", () => {
        lockClient = null;
      });
      lockClient = client.connect().then(() => client);
      lockClient.catch(() => {
        lockClient = null;
      });
    }
    return lockClient;
  };

  return {
    async tryLock(name: string): Promise<(() => Promise<void>) | null> {
      const client = await lockSession();
      const [row] = (
        await onLockSession(() => client.query("SELECT pg_try_advisory_lock(hashtext($1)) AS ok", [name]))
      ).rows;
      if (!row.ok) return null;
      return async () => {
        await onLockSession(() => client.query("SELECT pg_advisory_unlock(hashtext($1))", [name])).catch(
          () => {},
        );
      };
    },
    async close() {
      const client = lockClient;
      lockClient = null;
      await client?.then((c) => c.end());
    },
  };
}
