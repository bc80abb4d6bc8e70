import { atLeast, type Context } from "../lib/context.ts";
import { round } from "../lib/stats.ts";

const READINGS = Number(process.env.BENCH_METER_READINGS ?? 1_000_000);
const METERS = Number(process.env.BENCH_METERS ?? 1000);
const PER_REQUEST = 10_000;
const CLIENTS = 2;
const TARGET = 20_000;

/**
 * Step `meters` (docs/charges.md, "Bulk readings"): BENCH_METER_READINGS readings (default
 * 1,000,000) through POST /api/meters/readings/bulk, 10,000 per request: 2 clients, each with its
 * own half of 1,000 meters (their appends never race on a stream), each request 20 days of daily
 * readings of the client's 500 meters. About 1 % of the readings are spikes the anomaly rule flags.
 * Timed from the first request to the last answer; each answer comes once the read models hold
 * its readings (read-your-writes), so the figure includes the projection.
 */
export async function metersStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const tenant = await service.newTenant("bench-meters");
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${service.child.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const place = await call("POST", "/api/places", { name: "Bench meters" });
  const meters: string[] = [];
  for (let i = 0; i < METERS; i++)
    meters.push(
      String(
        (await call("POST", `/api/places/${place.id}/meters`, { type: "WATER_COLD", billing: "INDIVIDUAL" }))
          .id,
      ),
    );

  const requests = Math.ceil(READINGS / PER_REQUEST);
  const indexes = new Map(meters.map((m) => [m, 0]));
  const start = Date.parse("2000-01-01T00:00:00Z");
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  /** The k-th request of a client: the next days of its meters, 10,000 readings. */
  const bodyOf = (k: number, mine: string[]) => {
    const days = Math.ceil(PER_REQUEST / mine.length);
    const items: unknown[] = [];
    for (let d = 0; d < days; d++)
      for (const meter of mine) {
        const day = k * days + d;
        const spike = random() < 0.01;
        const used = spike ? 60 : 7 + random() * 6;
        const value = Math.round(((indexes.get(meter) ?? 0) + used) * 1000) / 1000;
        indexes.set(meter, value);
        items.push({
          meter_id: meter,
          value,
          read_on: new Date(start + day * 86_400_000).toISOString().slice(0, 10),
          source: "AUTOMATIC",
        });
      }
    return items;
  };
  const halves = [meters.filter((_, i) => i % 2 === 0), meters.filter((_, i) => i % 2 === 1)];
  const totals = { accepted: 0, flagged: 0, rejected: 0 };
  const started = performance.now();
  await Promise.all(
    halves.map(async (mine, client) => {
      for (let r = client; r < requests; r += CLIENTS) {
        const answer = await call("POST", "/api/meters/readings/bulk", bodyOf(Math.floor(r / CLIENTS), mine));
        totals.accepted += Number(answer.accepted);
        totals.flagged += Number(answer.flagged);
        totals.rejected += Number(answer.rejected);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sent = requests * PER_REQUEST;
  const perSecond = sent / seconds;
  ctx.raw.meters = { readings: sent, meters: METERS, seconds, per_second: perSecond, ...totals };
  const line = `${sent.toLocaleString("en")} readings of ${METERS} meters in ${round(seconds, 1)} s: ${round(perSecond, 0)} readings/s (${totals.accepted} accepted, ${totals.flagged} flagged, ${totals.rejected} rejected)`;
  console.log(`meters: ${line}`);
  ctx.figures.push({
    step: "meters",
    metric: `bulk readings/s (${sent.toLocaleString("en")} readings, 10,000 per request, anomaly flags computed, read models caught up)`,
    value: round(perSecond, 0),
    unit: "/s",
    target: `≥ ${TARGET.toLocaleString("en")}/s`,
    pass: atLeast(perSecond, TARGET) && totals.rejected === 0 && totals.flagged > 0,
    note: line,
  });
}
