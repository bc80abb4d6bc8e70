import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { stopAllChildren } from "./lib/children.ts";
import { type Context, createContext, type Figure } from "./lib/context.ts";
import { databases } from "./lib/databases.ts";
import { auditStep } from "./steps/audit.ts";
import { bankStep } from "./steps/bank.ts";
import { booksStep } from "./steps/books.ts";
import { bulkStep } from "./steps/bulk.ts";
import { catchupStep } from "./steps/catchup.ts";
import { chargesStep } from "./steps/charges.ts";
import { conditionReportsStep } from "./steps/conditionReports.ts";
import { creditsStep } from "./steps/credits.ts";
import { dpeStep } from "./steps/dpe.ts";
import { embeddedStep } from "./steps/embedded.ts";
import { leasesStep } from "./steps/leases.ts";
import { createStep, getStep, listStep } from "./steps/lesseesHttp.ts";
import { metersStep } from "./steps/meters.ts";
import { nationalStep } from "./steps/national.ts";
import { outboxStep } from "./steps/outbox.ts";
import { pdfStep } from "./steps/pdf.ts";
import { privacyStep } from "./steps/privacy.ts";
import { readYourWritesStep } from "./steps/readYourWrites.ts";
import { receiptsStep } from "./steps/receipts.ts";
import { rentCycleStep } from "./steps/rentCycle.ts";
import { sepaStep } from "./steps/sepa.ts";
import { storeStep } from "./steps/store.ts";
import { tokensStep } from "./steps/tokens.ts";
import { webhooksStep } from "./steps/webhooks.ts";

/**
 * `npm run bench`: the service under load against a plain baseline, the event store, projection
 * catch-up and read-your-writes, on throw-away databases. Environment:
 *   BENCH_DATABASE_URL  server to create `pms_bench_<random>` databases on (dropped at the end)
 *   BENCH_DURATION      seconds per load run (default 10)
 *   BENCH_PAIRS         interleaved pairs per comparison (default and minimum 3)
 *   BENCH_ONLY          comma-separated steps (create,get,list,bulk,store,catchup,ryw,dpe,embedded,leases,pdf,tokens,rent,outbox,receipts,webhooks,credits,charges,audit,meters,moving,privacy,books,bank,sepa,national)
 *   BENCH_EMBEDDED_ROOT another checkout whose embedded mode the embedded step measures
 *   BENCH_BIG=1         catch-up also over 1,000,000 events, and the national step (only run with
 *                       BENCH_BIG=1 or named in BENCH_ONLY): 10 million events, 1 million leases, 10,000
 *                       tenants in one database (bench/steps/national.ts, docs/scaling.md); sizes by
 *                       BENCH_NATIONAL_EVENTS, BENCH_NATIONAL_TENANT_LEASES, BENCH_NATIONAL_LIST_SECONDS
 *   BENCH_WAIT_QUIET    seconds to wait at most, before starting, for the load average to drop
 *   BENCH_RENT_LEASES   leases of the rent step's daily job (default 100000)
 *   BENCH_METER_READINGS readings of the meters step's bulk run (default 1000000)
 *   BENCH_SERVICE_NODE_ARGS  extra node flags for the service process (e.g. --cpu-prof)
 */
const STEPS: Record<string, (ctx: Context) => Promise<void>> = {
  create: createStep,
  get: getStep,
  list: listStep,
  bulk: bulkStep,
  store: storeStep,
  catchup: catchupStep,
  ryw: readYourWritesStep,
  dpe: dpeStep,
  embedded: embeddedStep,
  leases: leasesStep,
  pdf: pdfStep,
  tokens: tokensStep,
  rent: rentCycleStep,
  outbox: outboxStep,
  receipts: receiptsStep,
  webhooks: webhooksStep,
  credits: creditsStep,
  charges: chargesStep,
  audit: auditStep,
  books: booksStep,
  meters: metersStep,
  moving: conditionReportsStep,
  privacy: privacyStep,
  bank: bankStep,
  sepa: sepaStep,
  national: nationalStep,
};

const only = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = only.filter((s) => !(s in STEPS));
if (unknown.length) {
  console.error(`Unknown step(s) ${unknown.join(", ")}; steps are ${Object.keys(STEPS).join(", ")}`);
  process.exit(2);
}
const selected = Object.keys(STEPS).filter(
  (s) => only.includes(s) || (only.length === 0 && (s !== "national" || process.env.BENCH_BIG === "1")),
);
const seconds = Number(process.env.BENCH_DURATION ?? 10);
if (!(seconds > 0 && seconds <= 600)) {
  console.error("BENCH_DURATION must be a number of seconds in (0, 600]");
  process.exit(2);
}
const big = process.env.BENCH_BIG === "1";
const dbs = databases(process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
const ctx = createContext({ seconds, connections: 32, big, dbs });

let cleaning: Promise<void> | null = null;
const cleanup = () => {
  cleaning ??= (async () => {
    await stopAllChildren();
    await dbs.dropAll();
  })();
  return cleaning;
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping children and dropping databases`);
    void cleanup().finally(() => process.exit(130));
  });
}
// Whatever hangs, the run ends: a hard bound well above the expected total.
const hardLimitMs = (big ? 3600 : 1200) * 1000 + seconds * 30_000;
setTimeout(() => {
  console.error(`bench exceeded ${Math.round(hardLimitMs / 1000)} s: aborting`);
  void cleanup().finally(() => process.exit(1));
}, hardLimitMs).unref();

// BENCH_WAIT_QUIET=<seconds>: first wait (at most that long) for the machine to calm down.
const quietFor = Number(process.env.BENCH_WAIT_QUIET ?? 0);
for (
  const until = Date.now() + quietFor * 1000;
  Date.now() < until && loadavg()[0] > cpus().length * 0.75;
) {
  await new Promise((resolve) => setTimeout(resolve, 5000));
}
const startedAt = new Date();
const loadBefore: Record<string, number> = {};
let failedSteps = 0;
console.log(
  `bench ${ctx.runId}: steps ${selected.join(", ")}; ${seconds} s per run, ${ctx.connections} connections; ` +
    `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`,
);
try {
  for (const name of selected) {
    const t = Date.now();
    // Other work on the machine skews every figure: kept beside them (the 1-minute average also
    // counts this bench's own previous step).
    const busy = loadavg()[0];
    loadBefore[name] = Number(busy.toFixed(2));
    console.log(`• ${name} (load average ${busy.toFixed(1)} on ${cpus().length} cores)`);
    try {
      await STEPS[name](ctx);
      await dbs.dropStepDatabases();
    } catch (error) {
      failedSteps++;
      const message = (error as Error)?.stack ?? String(error);
      console.error(`  ${name} failed: ${message}`);
      ctx.figures.push({
        step: name,
        metric: "error",
        value: String((error as Error)?.message ?? error).split("\n")[0],
        unit: "",
        target: "",
        pass: false,
      });
    }
    console.log(`  ${name} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const service = await ctx.serviceIfStarted()?.catch(() => null);
  if (service) {
    const out = service.child.output();
    ctx.raw.serviceLog = { warningsOrErrors: out.problems, tail: out.tail.slice(-10) };
  }
} finally {
  await cleanup();
}

printTable(ctx.figures);
const report = {
  started_at: startedAt.toISOString(),
  finished_at: new Date().toISOString(),
  run_id: ctx.runId,
  settings: { seconds, connections: ctx.connections, big, steps: selected },
  machine: {
    cores: cpus().length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    load_average_before_step: loadBefore,
  },
  figures: ctx.figures,
  raw: ctx.raw,
};
const dir = new URL("./results/", import.meta.url);
await mkdir(dir, { recursive: true });
const json = `${JSON.stringify(report, null, 2)}\n`;
const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
await writeFile(new URL(`${stamp}.json`, dir), json);
await writeFile(new URL("latest.json", dir), json);
console.log(`\nwrote bench/results/${stamp}.json and bench/results/latest.json`);
process.exit(failedSteps > 0 ? 1 : 0);

function printTable(figures: Figure[]) {
  const rows = figures.map((f) => [
    f.step,
    f.metric,
    `${f.value}${f.unit && f.unit !== "×" ? ` ${f.unit}` : f.unit}`,
    f.target,
    f.pass === null ? "" : f.pass ? "PASS" : "FAIL",
  ]);
  const header = ["step", "metric", "value", "target", ""];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  figures.forEach((f, i) => {
    console.log(line(rows[i]));
    if (f.note) console.log(`${" ".repeat(widths[0] + 2)}  ↳ ${f.note}`);
  });
}
