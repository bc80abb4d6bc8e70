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
