import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueChargeStatements, statementMessageId } from "../../src/commands/charges/statementMessages.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { addDays, addYears, legalToday } from "../../src/law/calendar.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { chargeProjections } from "../../src/projections/charges.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** Charges over HTTP (docs/design.md §7.4, docs/charges.md): ledger, keys, freezes, regularisation, services. */
describe.each(databaseKinds)("charges on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newPlace, newLessee, setStatus, writesNothing } = leaseFixtures(() => t);
  let n = 0;
  const newEstate = async (placeId: string, area = 40) => {
    const res = await t.request("POST", `/api/places/${placeId}/estates`, {
      body: {
        name: `Lot ${++n}`,
        estate_type_id: globalTypeIds.estate.apartment,
        area,
        fiscal_identifier: `CH-${n}`,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const activeLease = async (estate_id: string, extra: object = {}) => {
    const res = await t.request("POST", "/api/leases", {
      body: {
        estate_id,
        primary_lessee_id: await newLessee(),
        lease_type: "UNFURNISHED",
        start_date: "2025-01-01",
        rent_amount: 800,
        charges_amount: 50,
        deposit_amount: 800,
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await setStatus(res.json().id, "ACTIVE")).statusCode).toBe(200);
    return res.json().id as string;
  };
  const charge = (placeId: string, body: object) =>
    t.request("POST", `/api/places/${placeId}/charges`, {
      body: {
        category: "ELEVATORS",
        amount: 1000,
        period: { from: "2025-01-01", to: "2025-12-31" },
        label: "Ascenseur",
        ...body,
      },
    });

  it("records, lists, changes and removes a charge; Finance permissions; another tenant's is 404", async () => {
    const place = await newPlace();
    const res = await charge(place, { amount: 1234.56, invoice_media_id: null });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      place_id: place,
      category: "ELEVATORS",
      recoverable: true,
      amount: 1234.56,
      period: { from: "2025-01-01", to: "2025-12-31" },
    });
    expect(res.headers.location).toBe(`/api/charges/${c.id}`);
    const list = await t.request("GET", `/api/places/${place}/charges`);
    expect(list.json()).toHaveLength(1);
    const put = await t.request("PUT", `/api/charges/${c.id}`, {
      body: { ...c, amount: 1300, category: "NON_RECOVERABLE" },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ amount: 1300, recoverable: false, label: "Ascenseur" });
    expect((await t.request("GET", `/api/charges/${c.id}`, { as: t.other })).statusCode).toBe(404);
    expect(
      (await t.request("PUT", `/api/charges/${c.id}`, { body: { amount: 1 }, as: t.other })).statusCode,
    ).toBe(404);
    const props = await t.newTenant(undefined, ["PropertiesRead", "PropertiesWrite"]);
    expect((await t.request("GET", `/api/places/${place}/charges`, { as: props })).statusCode).toBe(403);
    expect((await t.request("DELETE", `/api/charges/${c.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/charges/${c.id}`)).statusCode).toBe(404);
  });

  it("refuses bad input with 400 and writes nothing", async () => {
    const place = await newPlace();
    await writesNothing(async () => {
      expect((await charge(place, { category: "GARDEN" })).statusCode).toBe(400);
      expect((await charge(place, { amount: -5 })).json().details[0].field).toBe("amount");
      expect((await charge(place, { amount: 1.234 })).statusCode).toBe(400);
      expect(
        (await charge(place, { period: { from: "2025-02-01", to: "2025-01-01" } })).json().details[0].field,
      ).toBe("period.to");
      expect((await charge(place, { distribution_key_id: place })).json().details[0].field).toBe(
        "distribution_key_id",
      );
      expect((await charge(place, { invoice_media_id: place })).json().details[0].field).toBe(
        "invoice_media_id",
      );
      expect((await charge(place, { extra: 1 })).statusCode).toBe(400);
      // Heading VIII names its tax (décret 87-713 VIII), and only there.
      expect((await charge(place, { category: "TAXES_AND_FEES" })).json().details[0].field).toBe("tax");
      expect((await charge(place, { category: "TAXES_AND_FEES", tax: "TAXE_FONCIERE" })).statusCode).toBe(
        400,
      );
      expect((await charge(place, { tax: "TEOM" })).json().details[0]).toMatchObject({
        field: "tax",
        message: "Only a TAXES_AND_FEES charge names a tax",
      });
      expect((await charge("00000000-0000-4000-8000-000000000000", {})).statusCode).toBe(404);
    });
  });

  it("freezes a period: charges meeting it answer 409, an adjusting entry after it is accepted", async () => {
    const place = await newPlace();
    const original = (await charge(place, { period: { from: "2025-01-01", to: "2025-06-30" } })).json();
    const outside = (await charge(place, { period: { from: "2025-07-01", to: "2025-07-31" } })).json();
    const freeze = await t.request("POST", `/api/places/${place}/charge-freezes`, {
      body: { from: "2025-01-01", to: "2025-06-30" },
    });
    expect(freeze.statusCode, freeze.body).toBe(201);
    await writesNothing(async () => {
      // The freeze's last day is inside; the next day is not.
      expect((await charge(place, { period: { from: "2025-06-30", to: "2025-07-15" } })).statusCode).toBe(
        409,
      );
      expect(
        (await t.request("PUT", `/api/charges/${original.id}`, { body: { amount: 1 } })).statusCode,
      ).toBe(409);
      expect((await t.request("DELETE", `/api/charges/${original.id}`)).statusCode).toBe(409);
      expect(
        (
          await t.request("PUT", `/api/charges/${outside.id}`, {
            body: { period: { from: "2025-06-01", to: "2025-07-31" } },
          })
        ).statusCode,
      ).toBe(409);
    });
    expect((await charge(place, { period: { from: "2025-07-01", to: "2025-07-02" } })).statusCode).toBe(201);
    const adjusting = await charge(place, {
      amount: -200,
      corrects_charge_id: original.id,
      period: { from: "2025-07-01", to: "2025-07-01" },
      label: "Avoir ascenseur",
    });
    expect(adjusting.statusCode, adjusting.body).toBe(201);
    expect(adjusting.json()).toMatchObject({ amount: -200, corrects_charge_id: original.id });
    expect((await t.request("GET", `/api/places/${place}/charge-freezes`)).json()).toHaveLength(1);
    // The read models rebuilt from the log answer the same.
    const urls = [`/api/places/${place}/charges`, `/api/places/${place}/charge-freezes`];
    const before = await Promise.all(urls.map(async (u) => (await t.request("GET", u)).json()));
    for (const p of chargeProjections) await rebuildProjection(t.sql, t.service.platform.store, p);
    expect(await Promise.all(urls.map(async (u) => (await t.request("GET", u)).json()))).toEqual(before);
  });

  it("defines distribution keys of the place's estates only", async () => {
    const place = await newPlace();
    const [a, b] = [await newEstate(place, 30), await newEstate(place, 70)];
    const other = await newEstate(await newPlace());
    const surface = await t.request("POST", `/api/places/${place}/distribution-keys`, {
      body: { name: "Surface", kind: "SURFACE", shares: [{ estate_id: a }, { estate_id: b }] },
    });
    expect(surface.statusCode, surface.body).toBe(201);
    expect(surface.json().shares).toEqual([
      { estate_id: a, share: 30 },
      { estate_id: b, share: 70 },
    ]);
    await writesNothing(async () => {
      const res = await t.request("POST", `/api/places/${place}/distribution-keys`, {
        body: { name: "T", kind: "TANTIEMES", shares: [{ estate_id: a }, { estate_id: other, share: 3 }] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual([
        "shares[0].share",
        "shares[1].estate_id",
      ]);
    });
    expect((await t.request("GET", `/api/places/${place}/distribution-keys`)).json()).toHaveLength(1);
  });

  it("regularises last year: the leases and the vacancy sum to the recoverable total; statement PDF; flat rate 422", async () => {
    // Last year: regularised in time (no twelfths) and nothing prescribed, whatever today is.
    const Y = Number(legalToday().slice(0, 4)) - 1;
    const year = { from: `${Y}-01-01`, to: `${Y}-12-31` };
    const place = await newPlace();
    const [a, b, c] = [await newEstate(place), await newEstate(place), await newEstate(place)];
    const key = (
      await t.request("POST", `/api/places/${place}/distribution-keys`, {
        body: {
          name: "Tantièmes",
          kind: "TANTIEMES",
          shares: [
            { estate_id: a, share: 333 },
            { estate_id: b, share: 333 },
            { estate_id: c, share: 334 },
          ],
        },
      })
    ).json();
    const leaseA = await activeLease(a, { start_date: year.from });
    const leaseB = await activeLease(b, { start_date: `${Y}-07-01` });
    await charge(place, { amount: 1000.01, distribution_key_id: key.id, period: year });
    const teom = await charge(place, {
      amount: 500,
      category: "TAXES_AND_FEES",
      tax: "TEOM",
      label: "TEOM",
      period: year,
    });
    expect(teom.json()).toMatchObject({ tax: "TEOM", recoverable: true });
    const fonciere = await charge(place, {
      amount: 1200,
      category: "TAXES_AND_FEES",
      tax: "OTHER",
      label: "Taxe foncière",
      period: year,
    });
    expect(fonciere.json()).toMatchObject({ tax: "OTHER", recoverable: false });
    await charge(place, { amount: 99.99, category: "NON_RECOVERABLE", label: "Gros travaux", period: year });
    const cleaning = await t.request("POST", `/api/places/${place}/services`, {
      body: {
        kind: "CLEANING",
        amount: 100,
        frequency: "MONTHLY",
        recoverable_share_percent: 75,
        start_date: year.from,
      },
    });
    expect(cleaning.statusCode, cleaning.body).toBe(201);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: year.to, tenantId: t.tenant.id },
    );
    await eventually(
      async () => (await t.request("GET", `/api/leases/${leaseA}/rent-calls?limit=100`)).json(),
      (calls) => Array.isArray(calls) && calls.length === 12,
    );
    const reg = (lease: string) =>
      t.request("POST", `/api/leases/${lease}/charge-regularisations`, {
        body: year,
      });
    const ra = await reg(leaseA);
    expect(ra.statusCode, ra.body).toBe(201);
    const r = ra.json();
    // 1000.01 + 500 + 12 × 75 (cleaning) = 2400.01 recoverable; the non-recoverable one excluded.
    expect(r.recoverable_total).toBe(2400.01);
    expect(r.provisions_called).toBe(600);
    // The exclusions come in the charges' order, which the regularisation does not fix.
    expect(r.excluded).toHaveLength(2);
    expect(r.excluded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          label: "Taxe foncière",
          legal_reference: expect.stringContaining("87-713 du 26 août 1987, annexe, VIII"),
        }),
        expect.objectContaining({
          label: "Gros travaux",
          legal_reference: expect.stringContaining("87-713"),
        }),
      ]),
    );
    expect(r.days_occupied).toBe(r.days_of_period);
    expect(r.balance).toBeCloseTo(r.lease_amount - 600, 2);
    expect(r.instalments.allowed).toBe(false);
    const rb = (await reg(leaseB)).json();
    expect(rb.days_occupied).toBe(184);
    // Vacancy stays with the owner: the leases' parts are less than the total; per line exact.
    for (const line of r.lines) expect(line.place_amount).toBeGreaterThan(line.lease_amount);
    expect((await reg(leaseA)).statusCode).toBe(409);
    const pdf = await t.request("GET", `/api/leases/${leaseA}/charge-regularisations/${r.id}/statement`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    const statement = await pdfText(pdf.rawPayload);
    expect(statement).toContain("régularisation");
    // The dwelling and the parties, French dates and amounts, no id (docs/messages.md).
    expect(statement).toContain("Locataire(s) :");
    expect(statement).toContain("Logement :");
    expect(statement).toContain(`Période du 1er janvier ${Y} au 31 décembre ${Y}`);
    expect(statement).toContain("payable à compter du");
    expect(statement).toContain("Gros travaux (99,99 €) : non récupérable");
    expect(statement).not.toMatch(/Not a recoverable|Only the taxe/);
    expect(statement).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\d{4}-\d{2}-\d{2}|TANTIEMES|SURFACE|EQUAL/);
    // Emailed to the tenants, once, the balance payable a month later (art. 23).
    const deps = { sql: t.sql, store: t.service.platform.store };
    await eventually(
      async () => (await t.sql.query("SELECT 1 FROM charge_statement_messages WHERE id = $1", [r.id])).length,
      (n) => n === 1,
    );
    expect(await queueChargeStatements(deps)).toBeGreaterThanOrEqual(1);
    const sent = await eventually(
      async () =>
        (await t.request("GET", `/api/messages?topic=charge-statement&related_id=${r.id}`)).json() as {
          id: string;
          subject: string;
        }[],
      (list) => list.length === 1,
    );
    expect(sent[0].id).toBe(statementMessageId(r.id));
    expect(sent[0].subject).toContain(`Régularisation des charges du 1er janvier ${Y} au 31 décembre ${Y}`);
    await t.sql.query("UPDATE charge_statement_messages SET handled = NULL WHERE id = $1", [r.id]);
    await queueChargeStatements(deps);
    expect(
      (await t.request("GET", `/api/messages?topic=charge-statement&related_id=${r.id}`)).json(),
    ).toHaveLength(1);
    expect((await t.request("GET", `/api/leases/${leaseA}/charge-regularisations`)).json()).toHaveLength(1);
    const mobility = await activeLease(c, {
      lease_type: "MOBILITY",
      mobility_motive: "Stage",
      start_date: year.from,
      end_date: `${Y}-06-30`,
      duration_months: 6,
      deposit_amount: 0,
    });
    const flat = await t.request("POST", `/api/leases/${mobility}/charge-regularisations`, {
      body: { from: year.from, to: `${Y}-06-30` },
    });
    expect(flat.statusCode, flat.body).toBe(422);
    expect(flat.json().message).toContain("art. 25-18");
    const config = await t.request("GET", `/api/leases/${mobility}/charge-configuration`);
    expect(config.json()).toMatchObject({
      settlement: "FLAT",
      regularised: false,
      legal_reference: expect.stringContaining("25-18"),
    });
    expect((await t.request("GET", `/api/leases/${leaseA}/charge-configuration`)).json()).toMatchObject({
      settlement: "PROVISION",
      charges_amount: 50,
      regularised: true,
    });
  });

  it("a late regularisation may be paid in twelfths; expenses over three years old are out (art. 7-1)", async () => {
    // Around the day three years ago: what ended the day before is barred, what ends after is not.
    const threeYearsAgo = addYears(legalToday(), -3);
    const from = addDays(threeYearsAgo, -150);
    const to = addDays(threeYearsAgo, 150);
    const place = await newPlace();
    const lease = await activeLease(await newEstate(place), { start_date: from });
    await charge(place, { amount: 100, period: { from, to: addDays(threeYearsAgo, -1) }, label: "S1" });
    await charge(place, { amount: 240, period: { from: threeYearsAgo, to }, label: "S2" });
    const res = await t.request("POST", `/api/leases/${lease}/charge-regularisations`, {
      body: { from, to },
    });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json();
    expect(r.excluded).toMatchObject([{ label: "S1", legal_reference: expect.stringContaining("art. 7-1") }]);
    expect(r.lease_amount).toBe(240);
    expect(r.instalments).toMatchObject({ allowed: true, deadline: `${Number(to.slice(0, 4)) + 1}-12-31` });
    expect(r.instalments.schedule).toHaveLength(12);
    expect(
      r.instalments.schedule.reduce((s: number, x: { amount: number }) => s + Math.round(x.amount * 100), 0),
    ).toBe(24_000);
    const bad = await t.request("POST", `/api/leases/${lease}/charge-regularisations`, {
      body: { from: addDays(to, 1), to: addYears(addDays(to, 1), 1) },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("lists alerts for provision leases with no regularisation of a past year", async () => {
    const place = await newPlace();
    const Y = Number(legalToday().slice(0, 4)) - 2;
    const lease = await activeLease(await newEstate(place), { start_date: `${Y}-01-01` });
    const alerts = (await t.request("GET", `/api/places/${place}/charge-alerts`)).json();
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          lease_id: lease,
          kind: "REGULARISATION_OVERDUE",
          period: { from: "2024-01-01", to: "2024-12-31" },
        }),
      ]),
    );
  });

  it("services: a contract recovers a percent or an amount, not both", async () => {
    const place = await newPlace();
    const bad = await t.request("POST", `/api/places/${place}/services`, {
      body: {
        kind: "ELEVATOR_MAINTENANCE",
        amount: 300,
        frequency: "QUARTERLY",
        recoverable_share_percent: 50,
        recoverable_amount: 100,
        start_date: "2025-01-01",
      },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await t.request("POST", `/api/places/${place}/services`, {
      body: {
        kind: "ELEVATOR_MAINTENANCE",
        amount: 300,
        frequency: "QUARTERLY",
        recoverable_amount: 250,
        start_date: "2025-01-01",
      },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await t.request("GET", `/api/places/${place}/services`)).json()).toHaveLength(1);
    const caretaker = await t.request("POST", `/api/places/${place}/services`, {
      body: {
        kind: "CARETAKER",
        amount: 2500,
        frequency: "MONTHLY",
        recoverable_share_percent: 80,
        start_date: "2025-01-01",
      },
    });
    expect(caretaker.statusCode).toBe(400);
    expect(caretaker.json().details).toMatchObject([
      { field: "recoverable_share_percent", message: expect.stringContaining("art. 2 c") },
    ]);
    const unknownContact = await t.request("POST", `/api/places/${place}/services`, {
      body: {
        kind: "CLEANING",
        amount: 100,
        frequency: "MONTHLY",
        recoverable_share_percent: 100,
        start_date: "2025-01-01",
        provider_contact_id: place,
      },
    });
    expect(unknownContact.json().details).toMatchObject([{ field: "provider_contact_id" }]);
    expect((await t.request("GET", `/api/places/${place}/services`, { as: t.other })).statusCode).toBe(404);
  });
});
