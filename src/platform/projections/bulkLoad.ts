import type { Sql } from "../db.ts";

/**
 * A rebuild's load into fresh shadow tables (docs/performance.md, "Rebuild / catch-up"): the rows
 * nobody has written yet go in by COPY, and ids the rebuild has never written need no read.
 * One per rebuild; its transactions are marked with it, so a projection wrapping a
 * `rowProjection` passes the mark on without knowing about it.
 */
export interface BulkLoad {
  /** Ids of `table` this load has written: a filter, so "absent" is certain, "present" maybe. */
  written(table: string): IdFilter;
  /** Per column of `table`, whether it is json; null when COPY is not used for it. */
  columnKinds(tx: Sql, table: string, columns: readonly string[]): Promise<boolean[] | null>;
}

export interface IdFilter {
  add(id: string): void;
  mayHave(id: string): boolean;
}

const loads = new WeakMap<Sql, BulkLoad>();

export function bulkLoad(): BulkLoad {
  const filters = new Map<string, IdFilter>();
  const kinds = new Map<string, Promise<boolean[] | null>>();
  return {
    written(table) {
      let filter = filters.get(table);
      if (!filter) {
        filter = idFilter();
        filters.set(table, filter);
      }
      return filter;
    },
    columnKinds(tx, table, columns) {
      let known = kinds.get(table);
      if (!known) {
        known = readColumnKinds(tx, table, columns);
        kinds.set(table, known);
        known.catch(() => kinds.delete(table));
      }
      return known;
    },
  };
}

/** Marks a transaction of the load: its rows go into the load's fresh tables. */
export function markBulkLoad(tx: Sql, load: BulkLoad): Sql {
  loads.set(tx, load);
  return tx;
}

export function bulkLoadOf(tx: Sql): BulkLoad | undefined {
  return loads.get(tx);
}

// 2^24 bits (2 MB) and 4 probes: about 0.2 % false "maybe" after a million ids, so memory stays
// flat however long the log (docs/performance.md); a false "maybe" only costs a read.
const FILTER_BITS = 24;
const PROBES = 4;

/** A Bloom filter over ids, case-folded as uuids compare. */
function idFilter(): IdFilter {
  const words = new Uint32Array(1 << (FILTER_BITS - 5));
  const mask = (1 << FILTER_BITS) - 1;
  const probe = (id: string, visit: (bit: number) => boolean): boolean => {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i) | 0x20;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
    b |= 1;
    for (let k = 0; k < PROBES; k++) {
      if (!visit((a + k * b) & mask)) return false;
    }
    return true;
  };
  return {
    add(id) {
      probe(id, (bit) => {
        words[bit >>> 5] |= 1 << (bit & 31);
        return true;
      });
    },
    mayHave: (id) => probe(id, (bit) => (words[bit >>> 5] & (1 << (bit & 31))) !== 0),
  };
}

/** Null when a column is an array: COPY text would need PostgreSQL's array syntax, left to the upsert. */
async function readColumnKinds(
  tx: Sql,
  table: string,
  columns: readonly string[],
): Promise<boolean[] | null> {
  const rows = await tx.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [table],
  );
  const types = new Map(rows.map((r) => [r.name, r.type]));
  const kinds = columns.map((c) => types.get(c) ?? "text");
  if (kinds.some((t) => t.endsWith("]"))) return null;
  return kinds.map((t) => t === "json" || t === "jsonb");
}

const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const SPECIAL = /[\\\n\r\t]/g;
const HAS_SPECIAL = /[\\\n\r\t]/;
// Most fields need no escape: a test is cheaper than a replace that finds nothing.
const escapeCopy = (text: string) =>
  HAS_SPECIAL.test(text) ? text.replace(SPECIAL, (c) => COPY_ESCAPES[c]) : text;
const NULL_FIELD = "\\N";

/**
 * One field of COPY text, as jsonb_populate_recordset reads it from JSON.stringify of the row (the
 * live write): a json null, NaN or an invalid date is SQL NULL. Undefined when only the upsert
 * can say (an object in a non-json column, which jsonb would print with its own spacing).
 */
function copyField(value: unknown, json: boolean): string | undefined {
  if (value === null || value === undefined) return NULL_FIELD;
  if (json) {
    const text = JSON.stringify(value);
    return text === undefined || text === "null" ? NULL_FIELD : escapeCopy(text);
  }
  switch (typeof value) {
    case "string":
      return escapeCopy(value);
    case "number":
      return Number.isFinite(value) ? String(value) : NULL_FIELD;
    case "boolean":
      return String(value);
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? NULL_FIELD : value.toISOString();
  return undefined;
}

const CHUNK_CHARS = 65_536;

/**
 * COPY text for `rows`, in chunks of about 64 kB made as the connection takes them (the next
 * chunk is encoded while PostgreSQL parses the last). A row with a field `copyField` cannot
 * encode goes to `skipped`, for the upsert.
 */
export function* copyChunks(
  rows: Iterable<Record<string, unknown>>,
  columns: readonly string[],
  json: readonly boolean[],
  skipped: Record<string, unknown>[],
): Generator<string> {
  // Lines joined once per chunk, fields once per line: flat strings, not a concatenation per
  // field for the connection to flatten (docs/performance.md, "Rebuild / catch-up").
  const fields = new Array<string>(columns.length);
  let lines: string[] = [];
  let size = 0;
  next: for (const row of rows) {
    for (let i = 0; i < columns.length; i++) {
      const field = copyField(row[columns[i]], json[i]);
      if (field === undefined) {
        skipped.push(row);
        continue next;
      }
      fields[i] = field;
    }
    const line = fields.join("\t");
    lines.push(line);
    size += line.length + 1;
    if (size >= CHUNK_CHARS) {
      lines.push("");
      yield lines.join("\n");
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) {
    lines.push("");
    yield lines.join("\n");
  }
}
