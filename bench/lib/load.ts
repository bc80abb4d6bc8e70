import autocannon from "autocannon";
import { round } from "./stats.ts";

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
