import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireLeases, LEASE_EXPIRY_QUEUE } from "../../src/commands/leases/expire.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(databaseKinds)("lease expiry on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);
  const deps = () => ({ sql: t.sql, store: t.service.platform.store });
  const statusOf = async (id: string) => (await t.request("GET", `/api/leases/${id}`)).json().status;
  const until = async (check: () => Promise<boolean>, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error("timed out");
      await sleep(100);
    }
  };

  // Only the leases the law ends at their term expire (loi 89-462 art. 25-14 mobility, 25-7 student).
  const mobility = {
    lease_type: "MOBILITY",
    deposit_amount: null,
    start_date: "2024-03-01",
    mobility_motive: "Stage",
  };

  it("expires ACTIVE leases past their end date once, even with two workers at it, and frees the estate", async () => {
    const past = await newLease({ ...mobility, end_date: "2024-12-31" });
    const future = await newLease({ ...mobility, end_date: "2024-12-31", start_date: "2024-12-01" });
    const draft = await newLease({ ...mobility, end_date: "2024-12-31" });
    for (const l of [past, future]) expect((await setStatus(l.id, "ACTIVE")).statusCode).toBe(200);
    const [a, b] = await Promise.all([
      expireLeases(deps(), "2024-12-31"),
      expireLeases(deps(), "2025-01-01"),
    ]);
    expect([...a.expired, ...b.expired].sort()).toEqual([past.id, future.id].sort());
    expect((await expireLeases(deps(), "2025-01-01")).expired).toEqual([]);
    await until(async () => (await statusOf(past.id)) === "EXPIRED");
    const lease = (await t.request("GET", `/api/leases/${past.id}`)).json();
    expect(lease.terminated_at).toBe("2024-12-31");
    expect(await statusOf(draft.id)).toBe("DRAFT");
    expect((await t.request("GET", `/api/estates/${past.estate_id}`)).json().rental_status).toBe("VACANT");
    const history = (await t.request("GET", `/api/leases/${past.id}/history`)).json();
    expect(history.filter((e: { type: string }) => e.type === "LeaseExpired")).toHaveLength(1);
    // the estate can take a new lease
    const next = await t.request("POST", "/api/leases", {
      body: {
        estate_id: past.estate_id,
        primary_lessee_id: past.primary_lessee_id,
        lease_type: "UNFURNISHED",
        start_date: "2025-02-01",
        rent_amount: 810,
      },
    });
    expect((await setStatus(next.json().id, "ACTIVE")).statusCode).toBe(200);
  });

  it("renews an unfurnished lease at its term for 3 years and a furnished one for 1, still ACTIVE (art. 10, 25-7)", async () => {
    const unfurnished = await newLease({ start_date: "2022-01-01", end_date: "2024-12-31" });
    const furnished = await newLease({
      lease_type: "FURNISHED",
      start_date: "2024-01-01",
      end_date: "2024-12-31",
    });
    const notYet = await newLease({ start_date: "2022-01-02", end_date: "2025-01-01" });
    for (const l of [unfurnished, furnished, notYet])
      expect((await setStatus(l.id, "ACTIVE")).statusCode).toBe(200);
    const done = await expireLeases(deps(), "2025-01-01");
    expect(done.expired).toEqual([]);
    expect(done.renewed.sort()).toEqual([unfurnished.id, furnished.id].sort());
    const read = async (id: string) => (await t.request("GET", `/api/leases/${id}`)).json();
    // Both renewals projected (each lease's projection may lag the other's under load).
    await until(
      async () =>
        (await read(furnished.id)).end_date === "2025-12-31" &&
        (await read(unfurnished.id)).end_date === "2027-12-31",
    );
    expect(await read(unfurnished.id)).toMatchObject({ status: "ACTIVE", end_date: "2027-12-31" });
    expect(await read(furnished.id)).toMatchObject({ status: "ACTIVE", end_date: "2025-12-31" });
    expect(await read(notYet.id)).toMatchObject({ status: "ACTIVE", end_date: "2025-01-01" });
    const history = (await t.request("GET", `/api/leases/${unfurnished.id}/history`)).json();
    expect(history.filter((e: { type: string }) => e.type === "LeaseRenewed")).toMatchObject([
      {
        data: {
          renewed_on: "2025-01-01",
          previous_end_date: "2024-12-31",
          end_date: "2027-12-31",
          months: 36,
        },
      },
    ]);
    expect((await expireLeases(deps(), "2025-01-01")).renewed).toEqual([]);
  });

  it("renews for 6 years when the estate's owner is a company, a legal person (art. 10)", async () => {
    const owner = await t.request("POST", "/api/owners", {
      body: { category: "company", email: "gestion@fonciere.example", legal_name: "Foncière du Parc" },
    });
    expect(owner.statusCode, owner.body).toBe(201);
    const lease = await newLease({ start_date: "2019-01-01", end_date: "2024-12-31", duration_months: 72 });
    const moved = await t.request("PUT", `/api/estates/${lease.estate_id}`, {
      body: { owner_id: owner.json().id },
    });
    expect(moved.statusCode, moved.body).toBeLessThan(300);
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    await until(
      async () => (await t.request("GET", `/api/estates/${lease.estate_id}`)).json().owner_id !== null,
    );
    expect((await expireLeases(deps(), "2025-01-01")).renewed).toEqual([lease.id]);
    const history = (await t.request("GET", `/api/leases/${lease.id}/history`)).json();
    expect(history.find((e: { type: string }) => e.type === "LeaseRenewed").data).toMatchObject({
      end_date: "2030-12-31",
      months: 72,
    });
  });

  it("renews for 3 years when the owner is a family SCI (art. 10, 13 a), for 6 when another company", async () => {
    const register = async (legal_form: string, email: string) => {
      const res = await t.request("POST", "/api/owners", {
        body: { category: "company", legal_form, email, legal_name: `SCI ${legal_form}` },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().legal_form).toBe(legal_form);
      return res.json().id as string;
    };
    const family = await register("FAMILY_SCI", "sci@famille.example");
    const other = await register("OTHER_COMPANY", "sci@autre.example");
    const leaseOf = async (owner: string) => {
      const lease = await newLease({ start_date: "2022-01-01", end_date: "2024-12-31" });
      const moved = await t.request("PUT", `/api/estates/${lease.estate_id}`, { body: { owner_id: owner } });
      expect(moved.statusCode, moved.body).toBeLessThan(300);
      expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
      await until(
        async () => (await t.request("GET", `/api/estates/${lease.estate_id}`)).json().owner_id === owner,
      );
      return lease.id as string;
    };
    const byFamily = await leaseOf(family);
    const byOther = await leaseOf(other);
    // The term's last day: nothing yet; the next day both renew, each by its lessor's period.
    expect((await expireLeases(deps(), "2024-12-31")).renewed).toEqual([]);
    expect((await expireLeases(deps(), "2025-01-01")).renewed.sort()).toEqual([byFamily, byOther].sort());
    const renewal = async (id: string) =>
      (await t.request("GET", `/api/leases/${id}/history`))
        .json()
        .find((e: { type: string }) => e.type === "LeaseRenewed").data;
    expect(await renewal(byFamily)).toMatchObject({ end_date: "2027-12-31", months: 36 });
    expect(await renewal(byOther)).toMatchObject({ end_date: "2030-12-31", months: 72 });
  });

  it("runs as a pg-boss job on the worker", async () => {
    const due = await newLease({ ...mobility, start_date: "2021-03-01", end_date: "2021-12-31" });
    expect((await setStatus(due.id, "ACTIVE")).statusCode).toBe(200);
    await t.service.platform.jobs.boss.send(LEASE_EXPIRY_QUEUE, {});
    await until(async () => (await statusOf(due.id)) === "EXPIRED");
  }, 30_000);
});
