import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { legalToday } from "../../src/law/calendar.ts";
import { eventually } from "../support/eventually.ts";
import type { TestProvider } from "../support/identityProvider.ts";
import { type LesseeSpace, lesseeSpaceFixtures, startLesseeSpace } from "../support/lesseeSpace.ts";
import { pdfText } from "../support/pdfText.ts";
import type { TestApp, TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The lessee's own rent calls, account and receipts (docs/design.md §7.0, docs/rent-cycle.md "The
 * lessee's space"): the staff's answers filtered to the lessee's leases, with tokens signed by a
 * real JWKS. What a call or a receipt is, is tested in rentCycle.test.ts and rentCollection.test.ts.
 */

const YEAR = legalToday().slice(0, 4);

interface Call {
  id: string;
  period_start: string;
}

describe.each(databaseKinds)("the lessee's rent calls and receipts on %s", (kind) => {
  let space: LesseeSpace;
  let t: TestApp;
  let idp: TestProvider;
  let otherIdp: TestProvider;
  const { as, leaseOfLessee, lesseeToken, setStatus, writesNothing } = lesseeSpaceFixtures(() => t);

  beforeAll(async () => {
    space = await startLesseeSpace(kind);
    ({ t, idp, otherIdp } = space);
  });
  afterAll(async () => {
    await space?.close();
  });

  /** An active lease of `sub` (800 + 50 a month from 2027-01-01) with its January and February calls. */
  const leaseWithCalls = async (sub: string, tenant?: TestTenant) => {
    const id = await leaseOfLessee(sub, tenant, { start_date: "2027-01-01" });
    const active = await setStatus(id, "ACTIVE", {}, tenant);
    expect(active.statusCode, active.body).toBe(200);
    const deps = { sql: t.sql, store: t.service.platform.store };
    await issueRentCalls(deps, { today: "2027-02-10", tenantId: (tenant ?? t.tenant).id });
    const calls = await eventually(
      async () => (await t.request("GET", `/api/leases/${id}/rent-calls`, { as: tenant })).json() as Call[],
      (found) => found.length === 2,
    );
    expect(calls).toHaveLength(2);
    return { id, calls };
  };
  const pay = async (leaseId: string, amount: number) => {
    const res = await t.request("POST", `/api/leases/${leaseId}/payments`, {
      body: { amount, paid_on: legalToday(), method: "VIREMENT_BANCAIRE" },
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  const newSub = () => `lessee-${crypto.randomUUID()}`;

  it("lists and reads its own calls and account: the staff's answers, filtered", async () => {
    const sub = newSub();
    const { id, calls } = await leaseWithCalls(sub);
    await pay(id, 300);
    const token = await lesseeToken(idp, sub);

    const list = await t.request("GET", `/api/lessee/leases/${id}/rent-calls`, { as: token });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual((await t.request("GET", `/api/leases/${id}/rent-calls`)).json());
    expect(list.json().map((c: Call) => c.id)).toEqual(calls.map((c) => c.id));
    expect(list.headers["x-total-count"]).toBe("2");
    const paid = await t.request("GET", `/api/lessee/leases/${id}/rent-calls?status=PAID`, { as: token });
    expect(paid.json()).toEqual([]);
    const page = await t.request("GET", `/api/lessee/leases/${id}/rent-calls?limit=1&page=2`, { as: token });
    expect(page.json().map((c: Call) => c.id)).toEqual([calls[1].id]);

    const one = await t.request("GET", `/api/lessee/leases/${id}/rent-calls/${calls[0].id}`, { as: token });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ id: calls[0].id, lease_id: id, total_amount: 850, paid_amount: 300 });
    expect(one.json()).toEqual(
      (await t.request("GET", `/api/leases/${id}/rent-calls/${calls[0].id}`)).json(),
    );

    const account = await t.request("GET", `/api/lessee/leases/${id}/account`, { as: token });
    expect(account.statusCode, account.body).toBe(200);
    expect(account.json()).toMatchObject({ lease_id: id, balance: 1400 });
    expect(account.json()).toEqual((await t.request("GET", `/api/leases/${id}/account`)).json());

    // A malformed query is a 400, as on the staff's route.
    const bad = await t.request("GET", `/api/lessee/leases/${id}/rent-calls?status=LATE`, { as: token });
    expect(bad.statusCode).toBe(400);
  });

  it("its receipt: a quittance numbered once, the same the staff gets; unpaid 409 writing nothing", async () => {
    const sub = newSub();
    const { id, calls } = await leaseWithCalls(sub);
    const [jan, feb] = calls;
    const token = await lesseeToken(idp, sub);
    const receipt = (callId: string) =>
      t.request("GET", `/api/lessee/leases/${id}/rent-calls/${callId}/receipt`, { as: token });

    await writesNothing(async () => {
      const unpaid = await receipt(jan.id);
      expect(unpaid.statusCode, unpaid.body).toBe(409);
      expect(unpaid.json()).toMatchObject({ error: "Conflict", message: expect.stringMatching(/art\. 21/) });
    });

    await pay(id, 1000);
    const quittance = await receipt(jan.id);
    expect(quittance.statusCode, quittance.body).toBe(200);
    expect(quittance.headers["content-type"]).toBe("application/pdf");
    expect(quittance.headers["x-receipt-kind"]).toBe("QUITTANCE");
    const text = await pdfText(quittance.rawPayload);
    const number = new RegExp(`Quittance de loyer n° (Q-${YEAR}-\\d{6})`).exec(text)?.[1];
    expect(number, text).toBeDefined();
    expect(text).toMatch(/Loyer \(hors charges\) 800,00 €/);
    expect(text).toMatch(/Charges 50,00 €/);
    expect(text).toContain("délivrée gratuitement");
    expect(text).toContain("Camille Durand");

    // The staff asking afterwards gets the very quittance: one number, nothing written again.
    await writesNothing(async () => {
      const staff = await t.request("GET", `/api/leases/${id}/rent-calls/${jan.id}/receipt`);
      expect(await pdfText(staff.rawPayload)).toContain(`Quittance de loyer n° ${number}`);
      expect(await pdfText((await receipt(jan.id)).rawPayload)).toContain(`n° ${number}`);
    });

    // February got the 150 left: a reçu, paid and still due.
    const recu = await receipt(feb.id);
    expect(recu.headers["x-receipt-kind"]).toBe("RECU");
    expect(await pdfText(recu.rawPayload)).toMatch(/Reste dû 700,00 €/);
  });

  it("another lessee's lease or call answers 404, and asking its receipt writes nothing", async () => {
    const sub = newSub();
    const mine = await leaseWithCalls(sub);
    const theirs = await leaseWithCalls(newSub());
    await pay(theirs.id, 850);
    const token = await lesseeToken(idp, sub);
    const call = theirs.calls[0].id;

    await writesNothing(async () => {
      for (const url of [
        `/api/lessee/leases/${theirs.id}/rent-calls`,
        `/api/lessee/leases/${theirs.id}/rent-calls/${call}`,
        `/api/lessee/leases/${theirs.id}/account`,
        `/api/lessee/leases/${theirs.id}/rent-calls/${call}/receipt`,
      ]) {
        const res = await t.request("GET", url, { as: token });
        expect(res.statusCode, `${url} ${res.body}`).toBe(404);
        expect(res.json()).toEqual({ error: "NotFound", message: `Lease ${theirs.id} not found` });
      }
      // Their call under my lease: no such call of my lease.
      for (const url of [
        `/api/lessee/leases/${mine.id}/rent-calls/${call}`,
        `/api/lessee/leases/${mine.id}/rent-calls/${call}/receipt`,
      ]) {
        const res = await t.request("GET", url, { as: token });
        expect(res.statusCode, `${url} ${res.body}`).toBe(404);
        expect(res.json()).toEqual({ error: "NotFound", message: `Rent call ${call} not found` });
      }
    });
  });

  it("tenant isolation: the same subject at another tenant's provider never sees this tenant's calls", async () => {
    const sub = newSub();
    const here = await leaseWithCalls(sub);
    const there = await leaseWithCalls(sub, t.other);
    const token = await lesseeToken(otherIdp, sub);
    const own = await t.request("GET", `/api/lessee/leases/${there.id}/rent-calls`, { as: token });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().map((c: Call) => c.id)).toEqual(there.calls.map((c) => c.id));
    for (const url of [
      `/api/lessee/leases/${here.id}/rent-calls`,
      `/api/lessee/leases/${here.id}/account`,
      `/api/lessee/leases/${here.id}/rent-calls/${here.calls[0].id}`,
      `/api/lessee/leases/${there.id}/rent-calls/${here.calls[0].id}`,
    ])
      expect((await t.request("GET", url, { as: token })).statusCode, url).toBe(404);
  });

  it("needs a lessee token with lessee:leases:read (403 otherwise, download included); no credential 401", async () => {
    const sub = newSub();
    const { id, calls } = await leaseWithCalls(sub);
    const urls = [
      `/api/lessee/leases/${id}/rent-calls`,
      `/api/lessee/leases/${id}/rent-calls/${calls[0].id}`,
      `/api/lessee/leases/${id}/account`,
      `/api/lessee/leases/${id}/rent-calls/${calls[0].id}/receipt`,
    ];
    const refusals: [TestTenant, string][] = [
      [await lesseeToken(idp, sub, ""), "This token lacks the lessee:leases:read scope"],
      [
        await lesseeToken(idp, sub, "lessee:leases:sign lessee:leases:download"),
        "This token lacks the lessee:leases:read scope",
      ],
      [
        as(await idp.sign({ sub, roles: ["owner"], scope: "lessee:leases:read" })),
        "This route needs a lessee token; the token's roles: owner",
      ],
      [t.tenant, "This API key lacks the lessee:leases:read permission"],
    ];
    for (const url of urls) {
      for (const [credential, message] of refusals) {
        const res = await t.request("GET", url, { as: credential });
        expect(res.statusCode, `${url} ${res.body}`).toBe(403);
        expect(res.json()).toEqual({ error: "Forbidden", message });
      }
      expect((await t.request("GET", url, { as: null })).statusCode).toBe(401);
    }
  });
});
