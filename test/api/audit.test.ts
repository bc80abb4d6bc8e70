import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { areas } from "../../src/areas.ts";
import { computeDailyRoots } from "../../src/commands/audit/dailyRoots.ts";
import { leaseStream } from "../../src/events/leases.ts";
import { addDays, legalToday } from "../../src/law/calendar.ts";
import { verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, TEST_ADMIN_KEY, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const run = promisify(execFile);
const LONG = 120_000;

/** `pms audit verify FILE`: its exit code and what it printed. */
async function verifyCli(lines: string): Promise<{ code: number; out: string }> {
  const file = join(await mkdtemp(join(tmpdir(), "pms-audit-")), "history.ndjson");
  await writeFile(file, lines);
  try {
    const { stdout } = await run("node", ["bin/pms.js", "audit", "verify", file]);
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe.each(databaseKinds)("audit: hash chain, daily roots, export, upcasting on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLessee, newLease, setStatus } = leaseFixtures(() => t);
  const exportOf = async (id: string, as = t.tenant) => {
    const res = await t.request("GET", `/api/leases/${id}/history.ndjson`, { as });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/x-ndjson/);
    return res.body;
  };

  it("exports a lease's events hash-chained with the proof of its head under the day's root; verify checks it offline", {
    timeout: LONG,
  }, async () => {
    const { id } = await newLease();
    expect(
      (await t.request("PUT", `/api/leases/${id}`, { body: { special_conditions: "Clause 1" } })).statusCode,
    ).toBe(200);
    expect((await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" })).statusCode).toBe(200);

    const before = await exportOf(id);
    const lines = before
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ stream_name: leaseStream(id), stream_revision: 0, previous_hash: null });
    for (const [i, line] of lines.entries()) {
      expect(line.hash).toMatch(/^[0-9a-f]{64}$/);
      if (i > 0 && line.stream_name === lines[i - 1].stream_name)
        expect(line.previous_hash).toBe(lines[i - 1].hash);
    }
    expect(verifyLines(before.split("\n"))).toMatchObject({ ok: true, proofs: [] });

    // The night's job closes the day: its root, and the export's proof line for each stream.
    const today = legalToday();
    await computeDailyRoots(t.service.platform, { today: addDays(today, 1) });
    const root = await t.request("GET", `/api/audit/roots?date=${today}`);
    expect(root.statusCode, root.body).toBe(200);
    expect(root.json()).toMatchObject({ day: today, root: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(root.json().streams).toBeGreaterThanOrEqual(1);
    const exported = await exportOf(id);
    const proof = exported
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((l) => l.proof?.stream_name === leaseStream(id));
    expect(proof.proof).toMatchObject({ day: today, root: root.json().root });
    const verdict = verifyLines(exported.split("\n"));
    expect(verdict.ok).toBe(true);
    expect(verdict.proofs.map((p) => p.root)).toContain(root.json().root);

    const ok = await verifyCli(exported);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toContain(root.json().root);

    // One changed byte in the export: verify fails, naming the event (exit code 1).
    const at = exported.split("\n").findIndex((l) => l.includes('"special_conditions":"Clause 1"'));
    const changed = JSON.parse(exported.split("\n")[at]);
    const tampered = exported.replace('"special_conditions":"Clause 1"', '"special_conditions":"Clause 2"');
    const failed = await verifyCli(tampered);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain(`line ${at + 1}: event ${changed.event_id}`);
    expect(failed.out).toContain(`revision ${changed.stream_revision}`);

    // Another tenant: no lease, no root of ours.
    expect((await t.request("GET", `/api/leases/${id}/history.ndjson`, { as: t.other })).statusCode).toBe(
      404,
    );
    expect((await t.request("GET", `/api/leases/${randomUUID()}/history.ndjson`)).statusCode).toBe(404);
    expect((await t.request("GET", "/api/audit/roots?date=1999-01-01")).statusCode).toBe(404);
    expect((await t.request("GET", "/api/audit/roots?date=nope")).statusCode).toBe(400);
  });

  it("exports the lease's account (rent calls, payments) only to a caller that also holds FinanceRead", {
    timeout: LONG,
  }, async () => {
    const { id } = await newLease({ payment_day: 5 });
    expect((await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" })).statusCode).toBe(200);
    const paid = await t.request("POST", `/api/leases/${id}/payments`, {
      body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-02-10", amount: 100 },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const streams = (body: string) =>
      new Set(
        body
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l).stream_name)
          .filter(Boolean),
      );
    expect(streams(await exportOf(id))).toEqual(new Set([leaseStream(id), `lease_account-${id}`]));
    const created = await t.request("POST", `/api/admin/tenants/${t.tenant.id}/api-keys`, {
      as: null,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      body: { name: "leases only", permissions: ["LeasesRead"] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const leasesOnly = await t.request("GET", `/api/leases/${id}/history.ndjson`, {
      as: null,
      headers: { authorization: `Bearer ${created.json().key}` },
    });
    expect(leasesOnly.statusCode, leasesOnly.body).toBe(200);
    expect(streams(leasesOnly.body)).toEqual(new Set([leaseStream(id)]));
    expect(verifyLines(leasesOnly.body.split("\n")).ok).toBe(true);
  });

  it("reads a v1 LeaseLesseeEnded (end_date) current (ended_on) in projections, history, replay and rebuild; the export keeps it as stored", {
    timeout: LONG,
  }, async () => {
    const { id } = await newLease();
    const co = await newLessee();
    expect(
      (await t.request("POST", `/api/leases/${id}/lessees`, { body: { lessee_id: co, role: "CoTenant" } }))
        .statusCode,
    ).toBe(201);
    expect((await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" })).statusCode).toBe(200);
    const { store } = t.service.platform;
    const stream = await store.readStream(leaseStream(id));
    const last = stream[stream.length - 1];
    // An event as this service wrote it before version 2.
    await store.appendToStream(
      leaseStream(id),
      [
        {
          event_id: randomUUID(),
          type: "LeaseLesseeEnded",
          schema_version: 1,
          data: { lease_id: id, lessee_id: co, end_date: "2025-06-30" },
          metadata: { ...last.metadata, occurred_at: new Date().toISOString() },
        },
      ],
      { expected_revision: last.stream_revision },
    );
    // Projection.
    const association = await eventually(
      () => t.request("GET", `/api/leases/${id}/lessees/${co}`),
      (r) => r.statusCode === 200 && r.json().ended === true,
    );
    expect(association.json()).toMatchObject({ ended: true, end_date: "2025-06-30" });
    // History (audit view).
    const history = (await t.request("GET", `/api/leases/${id}/history`)).json();
    expect(history[history.length - 1]).toMatchObject({
      type: "LeaseLesseeEnded",
      data: { lease_id: id, lessee_id: co, ended_on: "2025-06-30" },
    });
    expect(history[history.length - 1].data).not.toHaveProperty("end_date");
    // Replay (as_of) and a command folding the stream.
    const asOf = (
      await t.request("GET", `/api/leases/${id}?as_of=${encodeURIComponent(new Date().toISOString())}`)
    ).json();
    expect(asOf.lessees.find((l: { lessee_id: string }) => l.lessee_id === co)).toMatchObject({
      ended: true,
      end_date: "2025-06-30",
    });
    const notice = await setStatus(id, "NOTICE", { effective_date: "2025-03-01" });
    expect(notice.statusCode, notice.body).toBe(200);
    // Rebuild of the lease projections from the log.
    for (const projection of areas.find((a) => a.name === "leases")!.projections)
      await rebuildProjection(t.sql, store, projection, () => {});
    const rebuilt = (await t.request("GET", `/api/leases/${id}/lessees/${co}`)).json();
    expect(rebuilt).toMatchObject({ ended: true, end_date: "2025-06-30" });
    // The export is over the log as stored: version 1, end_date, and it verifies.
    const exported = await exportOf(id);
    const ended = exported
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.type === "LeaseLesseeEnded");
    expect(ended).toMatchObject({ schema_version: 1, data: { end_date: "2025-06-30" } });
    expect(verifyLines(exported.split("\n")).ok).toBe(true);
  });
});
