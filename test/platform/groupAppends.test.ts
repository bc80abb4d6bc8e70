import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../../src/platform/db.ts";
import {
  type NewEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { groupAppends } from "../../src/platform/eventstore/postgres/groupAppends.ts";
import { readStream } from "../../src/platform/eventstore/postgres/readStream.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

const newEvent = (data: unknown = { n: 1 }): NewEvent => ({
  event_id: randomUUID(),
  type: "Tested",
  data,
  metadata: { tenant_id: randomUUID() } as NewEvent["metadata"],
});
const write = (stream_name: string, expected_revision: StreamWrite["expected_revision"] = "no_stream") => ({
  stream_name,
  events: [newEvent()],
  expected_revision,
});

/** Group commit of appends (src/platform/eventstore/postgres/groupAppends.ts). */
describe.runIf(process.env.TEST_DATABASE_URL)("grouped appends", () => {
  let sql: Sql;
  let drop: () => Promise<void>;
  /** Append statements sent, by the SQL's text. */
  let statements = 0;
  /** While set, an append statement fails as a database out of connections would. */
  let unavailable = false;
  beforeAll(async () => {
    const db = await createTestDatabase("postgres");
    drop = db.drop;
    const query = db.sql.query.bind(db.sql);
    sql = {
      ...db.sql,
      query: (text, params, options) => {
        if (/INSERT INTO events/.test(text)) {
          statements++;
          if (unavailable)
            return Promise.reject(
              Object.assign(new Error("sorry, too many clients already"), { code: "53300" }),
            );
        }
        return query(text, params, options);
      },
    };
  });
  afterAll(async () => {
    await drop?.();
  });

  it("concurrent appends go in a few statements, each to its own stream, in one commit per group", async () => {
    const append = groupAppends(sql, { inFlight: 1, maxEvents: 512 });
    const streams = Array.from({ length: 20 }, () => `g-${randomUUID()}`);
    statements = 0;
    const results = await Promise.all(streams.map((s) => append([write(s)])));
    // The first goes alone at once; the 19 that arrived while it was out go together.
    expect(statements).toBe(2);
    expect(new Set(results.slice(1).map(([r]) => r.position.commit)).size).toBe(1);
    for (const [i, s] of streams.entries()) {
      const events = await readStream(sql, s);
      expect(events.map((e) => e.stream_revision)).toEqual([0n]);
      expect(results[i][0].next_revision).toBe(0n);
      expect(results[i][0].position).toEqual(events[0].position);
    }
  });

  it("a refused append fails alone; the others of its group commit", async () => {
    const append = groupAppends(sql, { inFlight: 1, maxEvents: 512 });
    const taken = `g-${randomUUID()}`;
    await append([write(taken)]);
    const others = Array.from({ length: 5 }, () => `g-${randomUUID()}`);
    const first = append([write(`g-${randomUUID()}`)]);
    const outcomes = await Promise.allSettled([
      first,
      append([write(others[0]), write(taken)]), // all or nothing: its first stream must stay absent
      ...others.slice(1).map((s) => append([write(s)])),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    const refusal = (outcomes[1] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(WrongExpectedRevisionError);
    expect(refusal.stream_name).toBe(taken);
    expect(await readStream(sql, others[0])).toEqual([]);
    for (const s of others.slice(1)) expect(await readStream(sql, s)).toHaveLength(1);
  });

  it("a statement PostgreSQL refuses fails only the append that caused it", async () => {
    const append = groupAppends(sql, { inFlight: 1, maxEvents: 512 });
    const streams = Array.from({ length: 4 }, () => `g-${randomUUID()}`);
    const outcomes = await Promise.allSettled([
      append([write(`g-${randomUUID()}`)]),
      append([write(streams[0])]),
      // jsonb has no NUL character: PostgreSQL refuses the whole statement.
      append([
        { stream_name: streams[1], events: [newEvent({ text: "a\u0000b" })], expected_revision: "no_stream" },
      ]),
      append([write(streams[2])]),
      append([write(streams[3])]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    for (const [i, s] of streams.entries()) expect(await readStream(sql, s)).toHaveLength(i === 1 ? 0 : 1);
  });

  it("a database that cannot take the statement fails every append of it at once, not one by one", async () => {
    const append = groupAppends(sql, { inFlight: 1, maxEvents: 512 });
    const streams = Array.from({ length: 6 }, () => `g-${randomUUID()}`);
    const first = append([write(streams[0])]);
    unavailable = true;
    statements = 0;
    const grouped = streams.slice(1).map((s) => append([write(s)]));
    await first;
    const outcomes = await Promise.allSettled(grouped);
    unavailable = false;
    expect(statements).toBe(1);
    for (const o of outcomes) expect((o as PromiseRejectedResult).reason?.code).toBe("53300");
    for (const s of streams.slice(1)) expect(await readStream(sql, s)).toEqual([]);
  });

  it("appends to one stream never share a statement: each is judged on what the previous one wrote", async () => {
    const append = groupAppends(sql, { inFlight: 4, maxEvents: 512 });
    const stream = `g-${randomUUID()}`;
    await append([write(stream)]);
    const anyRevision = await Promise.all(Array.from({ length: 10 }, () => append([write(stream, "any")])));
    expect(anyRevision.map(([r]) => r.next_revision).sort((a, b) => Number(a - b))).toEqual(
      Array.from({ length: 10 }, (_, i) => BigInt(i + 1)),
    );
    const atTen = await Promise.allSettled(Array.from({ length: 5 }, () => append([write(stream, 10n)])));
    expect(atTen.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of atTen.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await readStream(sql, stream)).toHaveLength(12);
  });

  it("the same events sent twice at once answer as the first time, written once", async () => {
    const append = groupAppends(sql, { inFlight: 2, maxEvents: 512 });
    const stream = `g-${randomUUID()}`;
    const same = write(stream);
    const [a, b] = await Promise.all([append([same]), append([same])]);
    expect(a).toEqual(b);
    expect(await readStream(sql, stream)).toHaveLength(1);
  });

  it("an append larger than a group goes alone, all or nothing", async () => {
    const append = groupAppends(sql, { inFlight: 1, maxEvents: 4 });
    const stream = `g-${randomUUID()}`;
    statements = 0;
    const [result] = await append([
      {
        stream_name: stream,
        events: Array.from({ length: 6 }, () => newEvent()),
        expected_revision: "no_stream",
      },
    ]);
    expect(statements).toBe(1);
    expect(result.next_revision).toBe(5n);
  });
});
