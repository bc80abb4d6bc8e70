import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chainHashes } from "../../src/platform/eventstore/chain.ts";
import { verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { atMost, type Context } from "../lib/context.ts";
import { lesseeRegisteredData } from "../lib/lessees.ts";
import { benchMetadata } from "./store.ts";

const EVENTS = 100_000;
const PER_STREAM = 10;

/**
 * Verifying an export offline (docs/audit.md): 100,000 lessee-sized events in streams of 10,
 * chained as the store chains them, written to a file; the figure is reading that file and
 * checking every hash and link, as `pms audit verify` does. Target ≤ 5 s.
 */
export async function auditStep(ctx: Context): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pms-bench-audit-"));
  const file = join(dir, "history.ndjson");
  try {
    const tenant = randomUUID();
    const lines: string[] = [];
    for (let s = 0; s < EVENTS / PER_STREAM; s++) {
      const stream_name = `lessee-${randomUUID()}`;
      const events = Array.from({ length: PER_STREAM }, (_, i) => ({
        event_id: randomUUID(),
        type: i === 0 ? "LesseeRegistered" : "LesseeUpdated",
        schema_version: 1,
        data: lesseeRegisteredData(randomUUID(), `c${s}-${i}@example.fr`, s * PER_STREAM + i) as unknown,
        metadata: benchMetadata(tenant),
      }));
      const links = chainHashes(stream_name, 0n, null, events);
      for (const [i, e] of events.entries())
        lines.push(JSON.stringify({ stream_name, stream_revision: i, ...e, ...links[i] }));
    }
    await writeFile(file, `${lines.join("\n")}\n`);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const verdict = verifyLines((await readFile(file, "utf8")).split("\n"));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    if (!verdict.ok || verdict.events !== EVENTS)
      throw new Error(`verify failed: ${JSON.stringify(verdict.failure)}`);
    console.log(
      `  verify of ${EVENTS} events offline: ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} s of CPU)`,
    );
    ctx.figures.push({
      step: "audit verify",
      metric: `verify ${EVENTS.toLocaleString("en")}-event export offline`,
      value: Number(seconds.toFixed(2)),
      unit: "s",
      target: "≤ 5 s",
      pass: atMost(seconds, 5),
      note: `${cpuSeconds.toFixed(2)} s of CPU; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
