import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";
const estate = (name: string) => ({
  name,
  estate_type_id: globalTypeIds.estate.apartment,
  area: 50,
  fiscal_identifier: `FR-${name}`,
});

describe.each(databaseKinds)("syndic API on %s", (kind) => {
  let t: TestApp;
  let place: string;
  let lots: string[];
  beforeAll(async () => {
    t = await createTestApp(kind);
    place = (await t.request("POST", "/api/places", { body: { name: "Copropriété" } })).json().id;
    lots = [];
    for (const name of ["A", "B", "C"])
      lots.push((await t.request("POST", `/api/places/${place}/estates`, { body: estate(name) })).json().id);
  });
  afterAll(async () => {
    await t?.close();
  });
  const shares = () => [
    { estate_id: lots[0], tantiemes: 333 },
    { estate_id: lots[1], tantiemes: 333 },
    { estate_id: lots[2], tantiemes: 334 },
  ];

  it("votes a budget: quarterly calls per lot to the cent, the works fund apart, one budget per year", async () => {
    const res = await t.request("POST", `/api/places/${place}/syndic-budgets`, {
      body: { year: 2026, amount: 10000, works_fund_amount: 500.01, shares: shares() },
    });
    expect(res.statusCode, res.body).toBe(201);
    const budget = res.json();
    expect(res.headers.location).toBe(`/api/syndic-budgets/${budget.id}`);
    expect(budget.calls).toHaveLength(24);
    const sum = (kind: string) =>
      Math.round(
        budget.calls
          .filter((c: { kind: string }) => c.kind === kind)
          .reduce((s: number, c: { amount: number }) => s + c.amount * 100, 0),
      );
    expect(sum("BUDGET")).toBe(1_000_000);
    expect(sum("WORKS_FUND")).toBe(50_001);
    expect(budget.calls[0]).toMatchObject({
      kind: "BUDGET",
      quarter: 1,
      due_on: "2026-01-01",
      amount: 832.5,
    });
    expect((await t.request("GET", `/api/syndic-budgets/${budget.id}`)).json()).toEqual(budget);
    expect((await t.request("GET", `/api/places/${place}/syndic-budgets`)).json()).toEqual([budget]);
    const again = await t.request("POST", `/api/places/${place}/syndic-budgets`, {
      body: { year: 2026, amount: 1, works_fund_amount: 0, works_fund_dispensed: true, shares: shares() },
    });
    expect(again.statusCode).toBe(409);
    // Art. 14-2-1 II: the works fund is at least 5 % of the budget, a cent less is refused.
    const under = await t.request("POST", `/api/places/${place}/syndic-budgets`, {
      body: { year: 2031, amount: 10000, works_fund_amount: 499.99, shares: shares() },
    });
    expect(under.statusCode, under.body).toBe(422);
    expect(under.json().message).toMatch(/at least 500\.00 \(loi n° 65-557/);
    const exact = await t.request("POST", `/api/places/${place}/syndic-budgets`, {
      body: { year: 2031, amount: 10000, works_fund_amount: 500, shares: shares() },
    });
    expect(exact.statusCode, exact.body).toBe(201);
  });

  it("brings the remaining calls forward after a formal notice unanswered 30 days (art. 19-2)", async () => {
    const budget = (
      await t.request("POST", `/api/places/${place}/syndic-budgets`, {
        body: {
          year: 2025,
          amount: 4000,
          works_fund_amount: 0,
          works_fund_dispensed: true,
          shares: shares(),
        },
      })
    ).json();
    const sent = await t.request("POST", `/api/syndic-budgets/${budget.id}/formal-notices`, {
      body: { estate_id: lots[0], sent_on: "2025-04-10" },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const after = sent.json();
    expect(after.formal_notices[0].verdict).toMatchObject({
      rule: "SYNDIC_REMAINING_CALLS_DUE",
      status: "FAIL",
    });
    const october = after.calls.find(
      (c: { estate_id: string; quarter: number }) => c.estate_id === lots[0] && c.quarter === 4,
    );
    expect(october).toMatchObject({ due_on: "2025-10-01", effective_due_on: "2025-05-11" });
    const answered = await t.request(
      "POST",
      `/api/syndic-budgets/${budget.id}/formal-notices/${after.formal_notices[0].id}/answer`,
      { body: { answered_on: "2025-05-01" } },
    );
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json().formal_notices[0].verdict.status).toBe("PASS");
  });

  it("records a lot's payments against its calls, due ones first (code civil art. 1342-10)", async () => {
    const budget = (
      await t.request("POST", `/api/places/${place}/syndic-budgets`, {
        body: {
          year: 2024,
          amount: 4000,
          works_fund_amount: 0,
          works_fund_dispensed: true,
          shares: shares(),
        },
      })
    ).json();
    const lotCalls = (
      b: { calls: { estate_id: string; paid: number; outstanding: number }[] },
      lot: string,
    ) => b.calls.filter((c) => c.estate_id === lot).map((c) => [c.paid, c.outstanding]);
    expect(lotCalls(budget, lots[0])).toEqual([
      [0, 333],
      [0, 333],
      [0, 333],
      [0, 333],
    ]);
    const paid = await t.request("POST", `/api/syndic-budgets/${budget.id}/payments`, {
      body: { estate_id: lots[0], paid_on: "2024-04-20", amount: 700 },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.headers.location).toBe(`/api/syndic-budgets/${budget.id}`);
    const after = paid.json();
    // Q1 and Q2 were due on 20 April: paid; the 34 EUR left goes to Q3 in advance.
    expect(lotCalls(after, lots[0])).toEqual([
      [333, 0],
      [333, 0],
      [34, 299],
      [0, 333],
    ]);
    expect(lotCalls(after, lots[1]).every(([p]) => p === 0)).toBe(true);
    expect(after.payments).toEqual([
      { id: expect.any(String), estate_id: lots[0], paid_on: "2024-04-20", amount: 700 },
    ]);
    expect((await t.request("GET", `/api/syndic-budgets/${budget.id}`)).json()).toEqual(after);

    const before = await eventCount(t);
    for (const [body, field] of [
      [{ estate_id: lots[0], paid_on: "2024-05-01", amount: 633 }, "amount"],
      [{ estate_id: unknownId, paid_on: "2024-05-01", amount: 10 }, "estate_id"],
      [{ estate_id: lots[0], paid_on: "2999-01-01", amount: 10 }, "paid_on"],
      [{ estate_id: lots[0], paid_on: "2024-05-01", amount: 0 }, "amount"],
      [{ estate_id: lots[0], paid_on: "2024-05-01", amount: 1.001 }, "amount"],
    ] as const) {
      const res = await t.request("POST", `/api/syndic-budgets/${budget.id}/payments`, { body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const unknown = await t.request("POST", `/api/syndic-budgets/${unknownId}/payments`, {
      body: { estate_id: lots[0], paid_on: "2024-05-01", amount: 10 },
    });
    expect(unknown.statusCode).toBe(404);
    expect(await eventCount(t)).toBe(before);
    // What is left, to the cent: the whole of it is taken.
    const rest = await t.request("POST", `/api/syndic-budgets/${budget.id}/payments`, {
      body: { estate_id: lots[0], paid_on: "2024-05-01", amount: 632 },
    });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(lotCalls(rest.json(), lots[0]).every(([, o]) => o === 0)).toBe(true);
  });

  it("a formal notice met by the lot's payments within 30 days brings nothing forward", async () => {
    const budget = (
      await t.request("POST", `/api/places/${place}/syndic-budgets`, {
        body: {
          year: 2023,
          amount: 4000,
          works_fund_amount: 0,
          works_fund_dispensed: true,
          shares: shares(),
        },
      })
    ).json();
    const sent = await t.request("POST", `/api/syndic-budgets/${budget.id}/formal-notices`, {
      body: { estate_id: lots[1], sent_on: "2023-04-10" },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json().formal_notices[0]).toMatchObject({ met_on: null, verdict: { status: "FAIL" } });
    const paid = await t.request("POST", `/api/syndic-budgets/${budget.id}/payments`, {
      body: { estate_id: lots[1], paid_on: "2023-04-30", amount: 666 },
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const after = paid.json();
    expect(after.formal_notices[0]).toMatchObject({
      answered_on: null,
      met_on: "2023-04-30",
      verdict: { status: "PASS" },
    });
    const october = after.calls.find(
      (c: { estate_id: string; quarter: number }) => c.estate_id === lots[1] && c.quarter === 4,
    );
    expect(october.effective_due_on).toBe("2023-10-01");
    // Paid up: a second notice has no ground (art. 19-2).
    const again = await t.request("POST", `/api/syndic-budgets/${budget.id}/formal-notices`, {
      body: { estate_id: lots[1], sent_on: "2023-05-02" },
    });
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json().details[0].field).toBe("estate_id");
  });

  it("refuses bad input (4xx, nothing written), needs Finance, isolates tenants", async () => {
    const before = await eventCount(t);
    const cases: [string, object, number][] = [
      [
        `/api/places/${place}/syndic-budgets`,
        { year: 2027, amount: 0, works_fund_amount: 0, works_fund_dispensed: true, shares: shares() },
        400,
      ],
      [
        `/api/places/${place}/syndic-budgets`,
        { year: 2027, amount: 10.001, works_fund_amount: 0, works_fund_dispensed: true, shares: shares() },
        400,
      ],
      [
        `/api/places/${place}/syndic-budgets`,
        { year: 2027, amount: 10, works_fund_amount: 0, works_fund_dispensed: true, shares: [] },
        400,
      ],
      [
        `/api/places/${place}/syndic-budgets`,
        {
          year: 2027,
          amount: 10,
          works_fund_amount: 0,
          works_fund_dispensed: true,
          shares: [{ estate_id: unknownId, tantiemes: 1 }],
        },
        400,
      ],
      [
        `/api/places/${place}/syndic-budgets`,
        {
          year: 2027,
          amount: 10,
          works_fund_amount: 0,
          works_fund_dispensed: true,
          shares: [{ estate_id: lots[0], tantiemes: 0 }],
        },
        400,
      ],
      [
        `/api/places/${unknownId}/syndic-budgets`,
        { year: 2027, amount: 10, works_fund_amount: 0, works_fund_dispensed: true, shares: shares() },
        404,
      ],
      [`/api/syndic-budgets/${unknownId}/formal-notices`, { estate_id: lots[0], sent_on: "2025-01-01" }, 404],
    ];
    for (const [url, body, status] of cases) {
      const res = await t.request("POST", url, { body });
      expect(res.statusCode, `${url} ${JSON.stringify(body)} ${res.body}`).toBe(status);
    }
    expect(await eventCount(t)).toBe(before);
    const props = await t.newTenant("props", ["PropertiesRead", "PropertiesWrite"]);
    expect((await t.request("GET", `/api/places/${place}/syndic-budgets`, { as: props })).statusCode).toBe(
      403,
    );
    expect((await t.request("GET", `/api/places/${place}/syndic-budgets`, { as: t.other })).statusCode).toBe(
      404,
    );
  });
});
