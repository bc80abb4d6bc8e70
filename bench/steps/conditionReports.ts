import { atMost, type Context } from "../lib/context.ts";
import { round, summarize } from "../lib/stats.ts";

const REPORTS = Number(process.env.BENCH_CONDITION_REPORTS ?? 300);
const ROOMS = 12;
const ELEMENTS = ["Sol", "Murs", "Plafond", "Porte", "Fenêtre", "Prises et interrupteurs"];

/**
 * Condition reports (docs/moving.md): REPORTS entry reports of 12 rooms (6 elements each, meter
 * readings, keys) drafted, then signed, one at a time, through HTTP on the service. Each answer is
 * read-your-writes (the report from its read model). Target: p99 ≤ 50 ms for the create and for
 * the signing.
 */
export async function conditionReportsStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const tenant = await service.newTenant(`bench-moving-${ctx.runId}`);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.child.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  const created = async (path: string, body: unknown) => {
    const res = await call("POST", path, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.id as string;
  };
  const { globalTypeIds } = await import("../../src/events/types.ts");
  const place = await created("/api/places", { name: "Bench moving" });
  const estate = await created(`/api/places/${place}/estates`, {
    name: "Lot",
    estate_type_id: globalTypeIds.estate.house,
    area: 180,
    fiscal_identifier: "B-MOVING",
  });
  const lessee = await created("/api/lessees", {
    category: "individual",
    first_name: "Camille",
    last_name: "Bench",
    email: `moving-${ctx.runId}@example.test`,
  });
  const lease = await created("/api/leases", {
    estate_id: estate,
    primary_lessee_id: lessee,
    lease_type: "UNFURNISHED",
    start_date: "2025-01-01",
    rent_amount: 1500,
    deposit_amount: 1500,
  });
  const body = {
    type: "ENTRY",
    date: "2025-01-01",
    rooms: Array.from({ length: ROOMS }, (_, r) => ({
      name: `Pièce ${r + 1}`,
      elements: ELEMENTS.map((element, e) => ({
        element,
        condition: (["NEW", "GOOD", "FAIR", "POOR"] as const)[(r + e) % 4],
        comment: e % 2 === 0 ? "Traces d'usage légères" : null,
      })),
    })),
    meter_readings: [
      { kind: "Électricité HP", value: 12034 },
      { kind: "Électricité HC", value: 8031 },
      { kind: "Eau froide", value: 312.5 },
    ],
    keys: [
      { kind: "Porte d'entrée", count: 3 },
      { kind: "Boîte aux lettres", count: 2 },
    ],
  };

  const creates: number[] = [];
  const signs: number[] = [];
  let failed = 0;
  for (let i = 0; i < REPORTS; i++) {
    let t = performance.now();
    const res = await call("POST", `/api/leases/${lease}/condition-reports`, body);
    creates.push(performance.now() - t);
    if (res.status !== 201) {
      failed++;
      continue;
    }
    t = performance.now();
    const signed = await call("PUT", `/api/leases/${lease}/condition-reports/${res.json.id}/status`, {
      status: "SIGNED",
      signed_on: "2025-01-01",
    });
    signs.push(performance.now() - t);
    if (signed.status !== 200 || signed.json.status !== "SIGNED") failed++;
  }
  const create = summarize(creates);
  const sign = summarize(signs);
  ctx.raw.conditionReports = {
    reports: REPORTS,
    rooms: ROOMS,
    elements: ELEMENTS.length,
    create,
    sign,
    failed,
  };
  ctx.figures.push(
    {
      step: "26 condition reports",
      metric: `create p99 (${ROOMS} rooms × ${ELEMENTS.length} elements, one at a time)`,
      value: create.p99,
      unit: "ms",
      target: "≤ 50 ms",
      pass: atMost(create.p99, 50) && failed === 0,
      note: `p50 ${create.p50} ms over ${create.count} reports, ${failed} failed`,
    },
    {
      step: "26 condition reports",
      metric: "sign p99",
      value: sign.p99,
      unit: "ms",
      target: "≤ 50 ms",
      pass: atMost(sign.p99, 50) && failed === 0,
      note: `p50 ${sign.p50} ms; create + sign p50 ${round(create.p50 + sign.p50)} ms`,
    },
  );
}
