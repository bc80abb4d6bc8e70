import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (user + system, ms) of processes from /proc (Linux): where a request's cost goes, the
 * service's node process or PostgreSQL's backends, read the same way for the baseline. On a
 * shared machine, CPU per request moves less than requests per second do.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux.

/** utime, stime, cutime, cstime (ms) and the parent pid of a process, or null once it is gone. */
function statOf(pid: number): { self: number; children: number; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): ppid is the 2nd, utime..cstime the 12th-15th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      ppid: Number(f[1]),
      self: (Number(f[11]) + Number(f[12])) * TICK_MS,
      children: (Number(f[13]) + Number(f[14])) * TICK_MS,
    };
  } catch {
    return null;
  }
}

function cpuMsOf(pid: number): number {
  return statOf(pid)?.self ?? 0;
}

/**
 * Every PostgreSQL process of the machine: each postmaster's own time and that of its children
 * already exited (cutime, cstime), plus the live backends'. A backend that exits during a window
 * moves from the live sum to its postmaster's children time, so nothing is lost or counted twice.
 */
function postgresCpuMs(): number {
  const procs = new Map<number, { self: number; children: number; ppid: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    const stat = statOf(Number(entry));
    if (stat) procs.set(Number(entry), stat);
  }
  let total = 0;
  for (const p of procs.values()) total += p.self + (procs.has(p.ppid) ? 0 : p.children);
  return total;
}

export interface CpuSample {
  node: number;
  postgres: number;
}

/** CPU of `pid` (or this process) and of PostgreSQL since `start()`, in ms. */
export function cpuMeter(pid: number = process.pid): { stop(): CpuSample } {
  const node0 = cpuMsOf(pid);
  const pg0 = postgresCpuMs();
  return {
    stop: () => ({ node: cpuMsOf(pid) - node0, postgres: postgresCpuMs() - pg0 }),
  };
}

/**
 * CPU (ms) of the PostgreSQL backends serving one database, from the start of `start()`: on a
 * machine shared with other work, `cpuMeter`'s PostgreSQL figure counts every backend of the
 * server. Backends are those pg_stat_activity lists for the database at the start and at the
 * end (a pool's connections stay); one that exits before the end is not counted.
 */
export async function databaseCpuMeter(client: {
  query(text: string): Promise<{ rows: { pid: number }[] }>;
}): Promise<{ stop(): Promise<number> }> {
  const backends = async () =>
    (
      await client.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      )
    ).rows.map((r) => r.pid);
  const before = new Map((await backends()).map((pid) => [pid, cpuMsOf(pid)]));
  return {
    async stop() {
      let total = 0;
      for (const pid of new Set([...before.keys(), ...(await backends())])) {
        const now = statOf(pid);
        if (now) total += now.self - (before.get(pid) ?? 0);
      }
      return total;
    },
  };
}
