/** Small numeric helpers shared by the steps. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(values: number[]): {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
  };
}

export const round = (v: number, digits = 2) => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` with `concurrency` workers until `more()` says stop; each worker awaits its own calls. */
export async function runWorkers(
  concurrency: number,
  more: () => boolean,
  fn: (worker: number) => Promise<void>,
) {
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (more()) await fn(worker);
    }),
  );
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median of some runs and their spread (min–max), as printed in the report. */
export function medianSpread(
  values: number[],
  digits = 2,
): { median: number; min: number; max: number; text: string } {
  const m = round(median(values), digits);
  const min = round(Math.min(...values), digits);
  const max = round(Math.max(...values), digits);
  return { median: m, min, max, text: `median ${m} (spread ${min}–${max}, n=${values.length})` };
}

/** Interleaved pairs per comparison (BENCH_PAIRS, at least 3). */
export const PAIRS = Math.max(3, Number(process.env.BENCH_PAIRS) || 3);

/**
 * Runs `a` and `b` in `pairs` interleaved pairs, alternating which goes first so a machine that
 * slows down or speeds up during the run does not favour either; answers each side's results.
 */
export async function inPairs<A, B>(
  pairs: number,
  a: (pair: number) => Promise<A>,
  b: (pair: number) => Promise<B>,
): Promise<{ a: A[]; b: B[] }> {
  const out = { a: [] as A[], b: [] as B[] };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      out.a.push(await a(i));
      out.b.push(await b(i));
    } else {
      out.b.push(await b(i));
      out.a.push(await a(i));
    }
  }
  return out;
}

/** `inPairs` of two figures, with each pair's a/b ratio. */
export async function interleavedPairs(
  pairs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<{ a: number[]; b: number[]; ratios: number[] }> {
  const out = await inPairs(pairs, a, b);
  return { ...out, ratios: out.a.map((va, i) => va / out.b[i]) };
}
