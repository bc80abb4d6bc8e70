import { readFileSync } from "node:fs";

/** Memory of a process from /proc/<pid>/status, in bytes (Linux). */
export function procMemory(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
  } catch {
    return null;
  }
}

export interface RssSampler {
  /** Peak VmRSS seen while sampling, first and last sample, and the number of samples. */
  stop(): { peak: number; first: number; last: number; samples: number; hwm: number };
}

/** Polls VmRSS every `everyMs` until stopped: the peak over a window, unlike VmHWM (peak since start). */
export function sampleRss(pid: number, everyMs = 100): RssSampler {
  let peak = 0;
  let first = Number.NaN;
  let last = Number.NaN;
  let samples = 0;
  const take = () => {
    const m = procMemory(pid);
    // An exited child not yet reaped (a zombie) has a status without VmRSS: not a sample. It made
    // the catch-up step's peak NaN, and the step FAIL, in about half the runs.
    if (!m || !Number.isFinite(m.rss)) return;
    if (samples === 0) first = m.rss;
    last = m.rss;
    peak = Math.max(peak, m.rss);
    samples++;
  };
  take();
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    stop() {
      take();
      clearInterval(timer);
      return { peak, first, last, samples, hwm: procMemory(pid)?.hwm ?? Number.NaN };
    },
  };
}
