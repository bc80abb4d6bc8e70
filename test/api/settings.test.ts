import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REMINDER_LEVELS, TEMPLATE_CODES } from "../../src/events/settings.ts";
import { readConfiguration, readTemplate } from "../../src/queries/settings.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const configuration = {
  reminder_levels: [
    { level: 1, days_after_due: 3, kind: "REMINDER" },
    { level: 2, days_after_due: 10, kind: "FORMAL_NOTICE" },
  ],
  receipt_numbering: { prefix: "QT-", reset: "YEARLY" },
  sender: {
    name: "Agence Dupont",
    email: "gestion@agence-dupont.fr",
    address: "4 quai Perrache, 69002 Lyon",
  },
};
const quittance =
  "# Quittance {{receipt.number}}\n\nLoyer : {{money call.rent_amount}}\nCharges : {{money call.charges_amount}}";

describe.each(databaseKinds)("settings API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers the defaults until a configuration is saved, then the saved one (ETag, version)", async () => {
    const tenant = await t.newTenant("Cabinet Moreau");
    const before = await t.request("GET", "/api/configurations", { as: tenant });
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers.etag).toBeUndefined();
    expect(before.json()).toEqual({
      reminder_levels: DEFAULT_REMINDER_LEVELS,
      receipt_numbering: { prefix: "Q", reset: "YEARLY" },
      sender: { name: "Cabinet Moreau", email: "no-reply@pms.invalid", address: null },
      customised: false,
      version: 0,
      updated_at: null,
    });
    expect(await readConfiguration(t.sql, tenant.id)).toEqual({
      reminder_levels: DEFAULT_REMINDER_LEVELS,
      receipt_numbering: { prefix: "Q", reset: "YEARLY" },
      sender: { name: "Cabinet Moreau", email: "no-reply@pms.invalid", address: null },
    });

    const saved = await t.request("PUT", "/api/configurations", { as: tenant, body: configuration });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.headers.etag).toBe('W/"0"');
    expect(saved.json()).toMatchObject({ ...configuration, customised: true, version: 1 });
    expect(await readConfiguration(t.sql, tenant.id)).toEqual(configuration);
    const got = await t.request("GET", "/api/configurations", { as: tenant });
    expect(got.json()).toEqual(saved.json());
    expect(got.headers.etag).toBe('W/"0"');

    // What a GET shows may be PUT back: unchanged, no new version.
    const again = await t.request("PUT", "/api/configurations", { as: tenant, body: got.json() });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().version).toBe(1);
    // PUT replaces the whole: the address left out is removed.
    const { address: _, ...sender } = configuration.sender;
    const replaced = await t.request("PUT", "/api/configurations", {
      as: tenant,
      body: { ...configuration, sender },
      headers: { "if-match": 'W/"0"' },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({ sender: { ...sender, address: null }, version: 2 });
    expect(replaced.headers.etag).toBe('W/"1"');
    const history = await t.request("GET", "/api/configurations/history", { as: tenant });
    expect(history.json().map((e: { type: string }) => e.type)).toEqual([
      "ConfigurationSaved",
      "ConfigurationSaved",
    ]);
  });

  it("If-Match: a stale ETag or one of a configuration never saved is a 412, nothing written", async () => {
    const tenant = await t.newTenant();
    const never = await t.request("PUT", "/api/configurations", {
      as: tenant,
      body: configuration,
      headers: { "if-match": 'W/"0"' },
    });
    expect(never.statusCode).toBe(412);
    expect(
      (await t.request("PUT", "/api/configurations", { as: tenant, body: configuration })).statusCode,
    ).toBe(200);
    const count = await eventCount(t);
    const stale = await t.request("PUT", "/api/configurations", {
      as: tenant,
      body: { ...configuration, receipt_numbering: { prefix: "R", reset: "YEARLY" } },
      headers: { "if-match": 'W/"5"' },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error).toBe("PreconditionFailed");
    expect(await eventCount(t)).toBe(count);
  });

  it("validates the whole configuration (400 with details), saves nothing; no fee field exists", async () => {
    const tenant = await t.newTenant();
    const cases: [unknown, string[]][] = [
      [
        { ...configuration, reminder_levels: [{ level: 1, days_after_due: 5, kind: "REMINDER", fee: 10 }] },
        ["reminder_levels[0].fee"],
      ],
      [{ ...configuration, reminder_fee: 10 }, ["reminder_fee"]],
      [
        { ...configuration, reminder_levels: [{ level: 1, days_after_due: 0, kind: "REMINDER" }] },
        ["reminder_levels[0].days_after_due"],
      ],
      [
        {
          ...configuration,
          reminder_levels: [
            { level: 1, days_after_due: 10, kind: "REMINDER" },
            { level: 2, days_after_due: 10, kind: "SECOND_REMINDER" },
          ],
        },
        ["reminder_levels[1].days_after_due"],
      ],
      [
        {
          ...configuration,
          reminder_levels: [
            { level: 1, days_after_due: 10, kind: "FORMAL_NOTICE" },
            { level: 2, days_after_due: 20, kind: "REMINDER" },
          ],
        },
        ["reminder_levels[1].kind"],
      ],
      [
        { ...configuration, reminder_levels: [{ level: 2, days_after_due: 5, kind: "REMINDER" }] },
        ["reminder_levels[0].level"],
      ],
      [
        { ...configuration, receipt_numbering: { prefix: "Q<script>", reset: "YEARLY" } },
        ["receipt_numbering.prefix"],
      ],
      [{ ...configuration, receipt_numbering: { prefix: "Q", reset: "NEVER" } }, ["receipt_numbering.reset"]],
      [{ ...configuration, sender: { name: "X", email: "not-an-email" } }, ["sender.email"]],
      [{ reminder_levels: [] }, ["receipt_numbering", "sender"]],
    ];
    for (const [body, fields] of cases) {
      const res = await t.request("PUT", "/api/configurations", { as: tenant, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe("ValidationError");
      expect(
        res
          .json()
          .details.map((d: { field: string }) => d.field)
          .sort(),
        JSON.stringify(body),
      ).toEqual(fields);
    }
    const fee = await t.request("PUT", "/api/configurations", { as: tenant, body: cases[0][0] });
    expect(fee.json().details[0].message).toMatch(/no fee or penalty \(loi 89-462 art\. 4 i and p\)/);
    expect((await t.request("GET", "/api/configurations", { as: tenant })).json().customised).toBe(false);
    expect((await t.request("GET", "/api/configurations/history", { as: tenant })).json()).toEqual([]);
    // No reminder at all is a choice.
    const none = await t.request("PUT", "/api/configurations", {
      as: tenant,
      body: { ...configuration, reminder_levels: [] },
    });
    expect(none.statusCode, none.body).toBe(200);
  });

  it("lists every template code; saves, versions, resets to the default; history keeps each source", async () => {
    const tenant = await t.newTenant();
    const list = await t.request("GET", "/api/templates", { as: tenant });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().map((x: { code: string }) => x.code)).toEqual([...TEMPLATE_CODES]);
    expect(list.json()[0]).toEqual({ code: "quittance", customised: false, version: 0, updated_at: null });
    const none = await t.request("GET", "/api/templates/quittance", { as: tenant });
    expect(none.json()).toMatchObject({ code: "quittance", source: null, customised: false, version: 0 });
    expect(await readTemplate(t.sql, tenant.id, "quittance")).toBeNull();

    const saved = await t.request("PUT", "/api/templates/quittance", {
      as: tenant,
      body: { source: quittance },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      code: "quittance",
      source: quittance,
      customised: true,
      version: 1,
    });
    expect(saved.headers.etag).toBe('W/"0"');
    expect(await readTemplate(t.sql, tenant.id, "quittance")).toBe(quittance);
    expect(await readTemplate(t.sql, tenant.id, "recu")).toBeNull();
    // Put back as got: unchanged.
    const back = await t.request("PUT", "/api/templates/quittance", { as: tenant, body: saved.json() });
    expect(back.json().version).toBe(1);

    const stale = await t.request("DELETE", "/api/templates/quittance", {
      as: tenant,
      headers: { "if-match": 'W/"7"' },
    });
    expect(stale.statusCode).toBe(412);
    const reset = await t.request("DELETE", "/api/templates/quittance", {
      as: tenant,
      headers: { "if-match": 'W/"0"' },
    });
    expect(reset.statusCode).toBe(204);
    expect(await readTemplate(t.sql, tenant.id, "quittance")).toBeNull();
    const after = await t.request("GET", "/api/templates/quittance", { as: tenant });
    expect(after.json()).toMatchObject({ source: null, customised: false, version: 2 });
    expect(after.headers.etag).toBe('W/"1"');
    const listed = (await t.request("GET", "/api/templates", { as: tenant })).json();
    expect(listed[0]).toMatchObject({ code: "quittance", customised: false, version: 2 });
    const history = (await t.request("GET", "/api/templates/quittance/history", { as: tenant })).json();
    expect(history.map((e: { type: string; data: unknown }) => [e.type, e.data])).toEqual([
      ["TemplateSaved", { code: "quittance", source: quittance }],
      ["TemplateReset", { code: "quittance" }],
    ]);
    expect((await t.request("GET", "/api/templates/bail", { as: tenant })).statusCode).toBe(400);
  });

  it("refuses a broken template with 422 naming the problem, and saves nothing", async () => {
    const tenant = await t.newTenant();
    const count = await eventCount(t);
    const cases: [string, string, RegExp][] = [
      ["quittance", "{{#if call.paid_amount}}payé", /Parse error on line 1/],
      ["reminder", "Quittance n° {{receipt.number}}", /Unknown variable 'receipt\.number'/],
      ["quittance", "{{call.totl}}", /"totl" not defined/],
      ["recu", "{{call.constructor}}", /'constructor' is not a template variable/],
      ["recu", "{{> contract}}", /Partials/],
      ["recu", "{{log call}}", /Unknown helper 'log'/],
    ];
    for (const [code, source, problem] of cases) {
      const res = await t.request("PUT", `/api/templates/${code}`, { as: tenant, body: { source } });
      expect(res.statusCode, source).toBe(422);
      expect(res.json().error).toBe("UnprocessableEntity");
      expect(res.json().details[0]).toMatchObject({
        field: "source",
        message: expect.stringMatching(problem),
      });
    }
    const big = await t.request("PUT", "/api/templates/recu", {
      as: tenant,
      body: { source: "x".repeat(65_537) },
    });
    expect(big.statusCode).toBe(400);
    expect(big.json().details[0].field).toBe("source");
    expect(await eventCount(t)).toBe(count);
    expect(
      (await t.request("GET", "/api/templates", { as: tenant }))
        .json()
        .every((x: { version: number }) => x.version === 0),
    ).toBe(true);
  });

  it("keeps each tenant's settings to itself", async () => {
    const [a, b] = [await t.newTenant(), await t.newTenant()];
    await t.request("PUT", "/api/configurations", { as: a, body: configuration });
    await t.request("PUT", "/api/templates/reminder", {
      as: a,
      body: { source: "Relance {{reminder.level}}" },
    });
    expect((await t.request("GET", "/api/configurations", { as: b })).json().customised).toBe(false);
    expect((await t.request("GET", "/api/templates/reminder", { as: b })).json().source).toBeNull();
    expect((await t.request("GET", "/api/templates/reminder/history", { as: b })).json()).toEqual([]);
    expect(await readTemplate(t.sql, b.id, "reminder")).toBeNull();
    expect(await readTemplate(t.sql, a.id, "reminder")).toBe("Relance {{reminder.level}}");
  });

  it("needs SettingsRead to read and SettingsWrite to save and reset", async () => {
    const reader = await t.newTenant(undefined, ["SettingsRead"]);
    const finance = await t.newTenant(undefined, [
      "FinanceRead",
      "FinanceWrite",
      "FinanceDelete",
      "LeasesWrite",
    ]);
    const expectForbidden = async (
      method: string,
      url: string,
      as: typeof reader,
      permission: string,
      body?: object,
    ) => {
      const res = await t.request(method, url, { as, body });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().message).toBe(`This API key lacks the ${permission} permission`);
    };
    await expectForbidden("GET", "/api/configurations", finance, "SettingsRead");
    await expectForbidden("GET", "/api/templates", finance, "SettingsRead");
    await expectForbidden("GET", "/api/templates/recu/history", finance, "SettingsRead");
    await expectForbidden("PUT", "/api/configurations", reader, "SettingsWrite", configuration);
    await expectForbidden("PUT", "/api/templates/recu", reader, "SettingsWrite", { source: "x" });
    await expectForbidden("DELETE", "/api/templates/recu", reader, "SettingsWrite");
    expect((await t.request("GET", "/api/templates/recu", { as: reader })).statusCode).toBe(200);
    expect((await t.request("GET", "/api/configurations", { as: null })).statusCode).toBe(401);
  });
});
