import type { Sql } from "../../db.ts";
import type { AppendResult, StreamWrite } from "../eventStore.ts";
import { appendUnits } from "./appendToStream.ts";

/**
 * Group commit of this process's appends (docs/performance.md, "Grouped appends"): while
 * `inFlight` statements are out, appends that arrive wait, then go together as the units of one
 * statement, one commit. A lone append goes at once, so nothing waits on a timer; under load, 32
 * concurrent commands cost a few statements instead of 32.
 *
 * Each append keeps its own outcome (appendUnits): a refusal or an error of one does not fail the
 * others. Two grouped appends to one stream never share a statement or run at once here: the later
 * one waits for the earlier, and its revision check judges it against what that one wrote. An
 * append over `maxEvents` (a bulk) skips the queue; its revision check and the unique index still
 * judge it against any append running beside it.
 */
export interface GroupAppendsOptions {
  /** Statements out at once (the store keeps one: docs/decisions.md, "Grouped appends"). */
  inFlight: number;
  /** Events in one statement; a larger append (a bulk) goes alone, at once. */
  maxEvents: number;
}

interface Waiting {
  writes: StreamWrite[];
  events: number;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

export function groupAppends(
  sql: Sql,
  options: GroupAppendsOptions,
): (writes: StreamWrite[]) => Promise<AppendResult[]> {
  let queue: Waiting[] = [];
  /** Streams of the statements out now. */
  const busy = new Set<string>();
  let inFlight = 0;

  const send = async (group: Waiting[]) => {
    const outcomes: unknown[] = await appendUnits(
      sql,
      group.map((w) => w.writes),
    ).catch((error: unknown) => group.map(() => error));
    outcomes.forEach((o, i) => {
      if (Array.isArray(o)) group[i].resolve(o);
      else group[i].reject(o);
    });
  };

  const pump = () => {
    while (inFlight < options.inFlight && queue.length > 0) {
      const group: Waiting[] = [];
      const rest: Waiting[] = [];
      const streams = new Set<string>();
      let events = 0;
      for (const w of queue) {
        const free = w.writes.every((x) => !busy.has(x.stream_name) && !streams.has(x.stream_name));
        if (free && (group.length === 0 || events + w.events <= options.maxEvents)) {
          group.push(w);
          events += w.events;
          for (const x of w.writes) streams.add(x.stream_name);
        } else rest.push(w);
      }
      // Every waiting append touches a stream being written: the statement out will pump again.
      if (group.length === 0) return;
      queue = rest;
      inFlight++;
      for (const s of streams) busy.add(s);
      void send(group).finally(() => {
        inFlight--;
        for (const s of streams) busy.delete(s);
        pump();
      });
    }
  };

  return (writes) => {
    const events = writes.reduce((n, w) => n + w.events.length, 0);
    if (writes.length === 0) return Promise.resolve([]);
    if (events > options.maxEvents) return appendUnits(sql, [writes]).then(([r]) => unwrap(r));
    return new Promise<AppendResult[]>((resolve, reject) => {
      queue.push({ writes, events, resolve, reject });
      pump();
    });
  };
}

const unwrap = (result: AppendResult[] | Error): AppendResult[] => {
  if (result instanceof Error) throw result;
  return result;
};
