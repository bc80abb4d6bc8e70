import { createHash } from "node:crypto";
import pg from "pg";
// @ts-expect-error pg ships no types for its utils; prepareValue is how it sends parameters.
import { prepareValue } from "pg/lib/utils.js";
import type { QueryOptions } from "./db.ts";

/** How db.ts runs one statement on a connection: names, stale plans, inlined literals. */

/** A group of held statements failed (`TransactionOptions.batched`); `cause` is PostgreSQL's error. */
export class HeldStatementsError extends Error {
  constructor(cause: unknown) {
    super(`held statements failed: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = "HeldStatementsError";
  }
}

/**
 * The name of a prepared statement: derived from its text, so a different text is a different
 * statement (pg refuses one name for two texts) and every connection agrees on it.
 */
const statementNames = new Map<string, string>();
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pms_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** The query config pg takes: named when the caller asked to prepare it. */
export const configOf = (text: string, params: unknown[] | undefined, options?: QueryOptions) => {
  const config: { text: string; values?: unknown[]; name?: string; rowMode?: "array" } = {
    text,
    values: params,
  };
  if (options?.prepare) config.name = statementName(text);
  if (options?.arrays) config.rowMode = "array";
  return config;
};

/**
 * A named statement prepared before a table's columns changed type (a projection rebuilt by a
 * newer version, docs/performance.md) fails on every later call with "cached plan must not
 * change result type". The statement is dropped from the connection so the next call prepares
 * it afresh; outside a transaction the call is retried at once.
 */
const isStalePlan = (error: unknown) =>
  (error as { code?: string })?.code === "0A000" &&
  /cached plan must not change result type/.test(String((error as Error).message));

export async function forgetStatement(client: pg.PoolClient, name: string): Promise<void> {
  await client.query(`DEALLOCATE ${pg.escapeIdentifier(name)}`).catch(() => {});
  const connection = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } })
    .connection;
  if (connection?.parsedStatements) delete connection.parsedStatements[name];
}

export async function queryOn(
  client: pg.PoolClient,
  text: string,
  params: unknown[] | undefined,
  options?: QueryOptions,
): Promise<any[]> {
  try {
    return (await client.query(configOf(text, params, options))).rows;
  } catch (error) {
    if (!options?.prepare || !isStalePlan(error)) throw error;
    if (client.getTransactionStatus() !== "I") {
      // In a transaction: dropped after the rollback (transaction()), retried by the caller.
      staleIn.set(client, [...(staleIn.get(client) ?? []), statementName(text)]);
      throw error;
    }
    await forgetStatement(client, statementName(text));
    return (await client.query(configOf(text, params, options))).rows;
  }
}
export const staleIn = new WeakMap<pg.PoolClient, string[]>();

/** Parameters past this size (characters, about) go as parameters, not inlined into a script. */
const INLINE_LIMIT = 256 * 1024;

/** About the size of the literals (bytea, which cannot be inlined, counts as too large). */
export function tooLargeToInline(params: unknown[] | undefined): boolean {
  const sizeOf = (p: unknown): number =>
    typeof p === "string" ? p.length : Buffer.isBuffer(p) ? Number.POSITIVE_INFINITY : 16;
  let size = 0;
  for (const p of params ?? []) {
    size += Array.isArray(p)
      ? p.reduce((sum: number, item: unknown) => sum + sizeOf(item) + 4, 0)
      : sizeOf(p);
  }
  return size > INLINE_LIMIT;
}

/**
 * A statement with its parameters as literals, as pg would send them (text format), for a
 * simple-protocol script (`TransactionOptions.batched`).
 */
export function inlined(text: string, params: unknown[] = []): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = params[Number(n) - 1];
    if (value === null || value === undefined) return "NULL";
    const prepared = prepareValue(value);
    if (Buffer.isBuffer(prepared)) throw new Error("bytea parameters cannot be inlined");
    return pg.escapeLiteral(String(prepared));
  });
}

/** A multi-statement query answers one result per statement; callers want the last. */
export function lastRows(result: pg.QueryResult | pg.QueryResult[]): any[] {
  return Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows;
}

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return typeof code !== "string" || code.startsWith("08") || code === "57P01";
}
