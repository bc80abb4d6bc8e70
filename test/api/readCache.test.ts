import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { readCacheOf } from "../../src/platform/http/readCache.ts";
import { type Service, startService } from "../../src/service.ts";
import { DPE_SAMPLE } from "../support/energyDiagnosisSample.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The read cache (src/platform/http/readCache.ts) behind the DPE list, the resource kit's lists
 * and the lease account: every answer equals, byte for byte, what a service without the cache
 * answers on the same database, right after each write; tenants never see each other's entries.
 */
describe.each(databaseKinds)("read cache on %s", (kind) => {
  let t: TestApp;
  /** The same API, read cache off, over the same database (no projector of its own). */
  let uncached: Service;
  beforeAll(async () => {
    t = await createTestApp(kind);
    uncached = await startService(
      { ...t.service.platform.config, PMS_READ_CACHE_BYTES: 0 },
      { roles: ["api"], sql: t.sql, loops: false },
    );
    await uncached.app!.ready();
  });
  afterAll(async () => {
    await uncached?.close();
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  const uncachedGet = (url: string, as: TestTenant) =>
    uncached.app!.inject({ method: "GET", url, headers: { authorization: `Bearer ${as.key}` } });
  const shown = (res: LightMyRequestResponse) => ({
    status: res.statusCode,
    body: res.body,
    total: res.headers["x-total-count"],
    link: res.headers.link,
    etag: res.headers.etag,
    type: res.headers["content-type"],
  });
  /** Reads `url` twice through the cache (the second a hit) and once without: all three identical. */
  const readSame = async (url: string, as: TestTenant = t.tenant) => {
    const first = await t.request("GET", url, { as });
    const second = await t.request("GET", url, { as });
    const plain = await uncachedGet(url, as);
    expect(first.statusCode, first.body).toBe(200);
    expect(shown(first)).toEqual(shown(plain));
    expect(shown(second)).toEqual(shown(plain));
    return first;
  };
  const write = async (method: string, url: string, body?: unknown, as?: TestTenant) => {
    const res = await t.request(method, url, { body, as });
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(res.statusCode, "the command waited for its read model").not.toBe(202);
    return res.statusCode === 204 ? null : res.json();
  };

  it("DPE list: every create, update and delete is seen by the next read, identical to an uncached answer", async () => {
    const place = (await write("POST", "/api/places", { name: "Résidence du Parc" })).id;
    const urls = [
      "/api/energy-diagnoses",
      "/api/energy-diagnoses?limit=2",
      "/api/energy-diagnoses?limit=2&page=2",
      "/api/energy-diagnoses?limit=2&after=",
      "/api/energy-diagnoses?energy_label=D",
    ];
    const hitsBefore = readCacheOf(t.app).stats().hits;
    for (let i = 0; i < 6; i++) {
      const created = await write("POST", "/api/energy-diagnoses", {
        ...DPE_SAMPLE,
        place_id: place,
        reference_number: `DPE-CACHE-${i}`,
      });
      for (const url of urls) await readSame(url);
      expect((await readSame("/api/energy-diagnoses?limit=1000")).json()).toContainEqual(created);

      const { id, created_at, updated_at, ...fields } = created;
      await write("PUT", `/api/energy-diagnoses/${id}`, { ...fields, energy_label: "E", notes: `v${i}` });
      const listed = (await readSame("/api/energy-diagnoses?limit=1000")).json();
      expect(listed.find((d: { id: string }) => d.id === id)).toMatchObject({
        energy_label: "E",
        notes: `v${i}`,
      });
      for (const url of urls) await readSame(url);

      if (i % 2 === 0) {
        await write("DELETE", `/api/energy-diagnoses/${id}`);
        const after = (await readSame("/api/energy-diagnoses?limit=1000")).json();
        expect(after.map((d: { id: string }) => d.id)).not.toContain(id);
        for (const url of urls) await readSame(url);
      }
    }
    expect(readCacheOf(t.app).stats().hits).toBeGreaterThan(hitsBefore);
    expect(Number((await readSame("/api/energy-diagnoses")).headers["x-total-count"])).toBe(3);
  });

  it("never shows a tenant another tenant's entries", async () => {
    const tenants = [t.tenant, await t.newTenant(), await t.newTenant()];
    for (const [n, as] of tenants.entries()) {
      const place = (await write("POST", "/api/places", { name: `Place ${n}` }, as)).id;
      for (let i = 0; i <= n; i++)
        await write(
          "POST",
          "/api/owners",
          { category: "individual", first_name: `P${i}`, last_name: `T${n}`, email: "p@example.fr" },
          as,
        );
      await write(
        "POST",
        "/api/energy-diagnoses",
        { ...DPE_SAMPLE, place_id: place, reference_number: `DPE-T${n}` },
        as,
      );
    }
    for (let round = 0; round < 2; round++)
      for (const [n, as] of tenants.entries()) {
        const owners = (await readSame("/api/owners", as)).json();
        expect(owners.map((o: { last_name: string }) => o.last_name)).toEqual(Array(n + 1).fill(`T${n}`));
        const dpes = (await readSame("/api/energy-diagnoses?energy_label=D&limit=1000", as)).json();
        const refs = dpes.map((d: { reference_number: string }) => d.reference_number);
        expect(refs).toContain(`DPE-T${n}`);
        for (const [m] of tenants.entries()) if (m !== n) expect(refs).not.toContain(`DPE-T${m}`);
      }
  });

  it("resource kit list (owners): updates and deletes seen by the next read", async () => {
    const as = await t.newTenant();
    for (let i = 0; i < 5; i++) {
      const owner = await write(
        "POST",
        "/api/owners",
        { category: "individual", first_name: "Jeanne", last_name: `Martin ${i}`, email: "j@example.fr" },
        as,
      );
      expect((await readSame("/api/owners", as)).json()).toContainEqual(owner);
      await write(
        "PUT",
        `/api/owners/${owner.id}`,
        { category: "individual", first_name: "Jeanne", last_name: `Durand ${i}`, email: "j@example.fr" },
        as,
      );
      const listed = (await readSame("/api/owners?limit=1000", as)).json();
      expect(listed.find((o: { id: string }) => o.id === owner.id)).toMatchObject({
        last_name: `Durand ${i}`,
      });
      await readSame("/api/owners", as);
      await write("DELETE", `/api/owners/${owner.id}`, undefined, as);
      expect((await readSame("/api/owners", as)).json()).toEqual([]);
    }
  });

  it("lease account: every payment and its cancellation seen by the next read", async () => {
    const lease = await newLease({ payment_day: 5 });
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-03-15", tenantId: t.tenant.id },
    );
    const url = `/api/leases/${lease.id}/account`;
    // The job's calls reach the read model a moment after the job.
    for (let i = 0; i < 200 && (await t.request("GET", url)).json().entries.length < 3; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    let balance = (await readSame(url)).json().balance;
    for (let i = 1; i <= 5; i++) {
      const payment = await write("POST", `/api/leases/${lease.id}/payments`, {
        method: "VIREMENT_BANCAIRE",
        paid_on: "2025-02-10",
        amount: 10 * i,
      });
      const paid = (await readSame(url)).json();
      expect(paid.balance).toBe(balance - 10 * i);
      expect(paid.entries.at(-1)).toMatchObject({ kind: "PAYMENT", payment_id: payment.id });
      await write("POST", `/api/leases/${lease.id}/payments/${payment.id}/cancel`, {
        reason: "cheque returned",
      });
      const cancelled = (await readSame(url)).json();
      expect(cancelled.balance).toBe(balance);
      expect(cancelled.entries.at(-1)).toMatchObject({ kind: "PAYMENT_CANCELLED", payment_id: payment.id });
      balance = cancelled.balance;
    }
    // Another tenant asking for the same lease's account: not found, never the cached answer.
    expect((await t.request("GET", url, { as: t.other })).statusCode).toBe(404);
  });
});
