import autocannon from "autocannon";
import { inPairs, PAIRS, round } from "./stats.ts";

export interface LoadResult {
  /** 2xx responses per second over the measured window. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  seconds: number;
}

export interface LoadOptions {
  url: string;
  path: string;
  method?: "GET" | "POST";
  apiKey: string;
  connections: number;
  seconds: number;
  /** A fresh request (path and/or body) per call: unique emails, varying ids or pages. */
  next?: () => { path?: string; body?: string };
}

async function fire(options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
  if (options.method === "POST") headers["content-type"] = "application/json";
  const next = options.next;
  return autocannon({
    url: options.url,
    connections: options.connections,
    duration: seconds,
    timeout: 10,
    headers,
    requests: [
      {
        method: options.method ?? "GET",
        path: options.path,
        headers,
        setupRequest: next ? (request) => ({ ...request, ...next() }) : undefined,
      },
    ],
  });
}

/** A short warm-up (JIT, pools), then the measured run. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const warmup = Math.max(1, Math.min(2, Math.round(options.seconds / 5)));
  await fire(options, warmup);
  const r = await fire(options, options.seconds);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    rps: round(r["2xx"] / r.duration, 1),
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    ok: r["2xx"],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    seconds: round(r.duration, 2),
  };
}

/** Several runs of the same load as one: means of rates and percentiles, sums of counts. */
export function mergeRuns(runs: LoadResult[]): LoadResult {
  const mean = (f: (r: LoadResult) => number) => round(runs.reduce((a, r) => a + f(r), 0) / runs.length, 1);
  const sum = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of runs)
    for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    rps: mean((r) => r.rps),
    p50: mean((r) => r.p50),
    p90: mean((r) => r.p90),
    p99: mean((r) => r.p99),
    max: Math.max(...runs.map((r) => r.max)),
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    seconds: sum((r) => r.seconds),
  };
}

/**
 * Service and baseline in interleaved pairs (`inPairs`: S B, B S, S B): drift on the machine
 * (other work, autovacuum, a table growing) weighs on both sides alike. Each side's figures are
 * the mean of its runs; `ratios` holds each pair's service/baseline req/s, whose median and spread
 * the report prints (docs/performance.md, "Bench (item 5)").
 */
export async function alternate(
  service: (round: number) => Promise<LoadResult>,
  baseline: (round: number) => Promise<LoadResult>,
  pairs = PAIRS,
): Promise<{
  service: LoadResult;
  baseline: LoadResult;
  runs: { service: LoadResult; baseline: LoadResult }[];
  ratios: number[];
}> {
  const both = await inPairs(pairs, service, baseline);
  const runs = both.a.map((s, i) => ({ service: s, baseline: both.b[i] }));
  return {
    service: mergeRuns(both.a),
    baseline: mergeRuns(both.b),
    runs,
    ratios: runs.map((r) => r.service.rps / Math.max(r.baseline.rps, Number.MIN_VALUE)),
  };
}
