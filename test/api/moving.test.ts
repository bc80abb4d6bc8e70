import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { REQUIRED_ITEMS } from "../../src/law/furnishedInventory.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { conditionReportsProjection } from "../../src/projections/conditionReports.ts";
import { exitReportFacts } from "../../src/queries/conditionReports.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";
const fields = (res: { json(): any }) => res.json().details?.map((d: { field: string }) => d.field) ?? [];

describe.each(databaseKinds)("moving in and out on %s", (kind) => {
  let t: TestApp;
  const fx = leaseFixtures(() => t);
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const newRoom = async (estate: string, name = "Cuisine") => {
    const res = await t.request("POST", `/api/places/${fx.place()}/estates/${estate}/rooms`, {
      body: { name, room_type_id: globalTypeIds.room.kitchen },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  describe("equipment of a room", () => {
    it("adds, reads, lists, updates and removes equipment on the equipment types catalog", async () => {
      const estate = await fx.newEstate();
      const room = await newRoom(estate);
      const base = `/api/places/${fx.place()}/estates/${estate}/rooms/${room}/equipment`;
      const created = await t.request("POST", base, {
        body: {
          equipment_type_id: globalTypeIds.equipment.oven,
          brand: "Bosch",
          model: "HBA 534",
          installed_on: "2024-03-01",
          condition: "GOOD",
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const item = created.json();
      expect(item).toMatchObject({
        room_id: room,
        brand: "Bosch",
        installed_on: "2024-03-01",
        condition: "GOOD",
      });
      expect((await t.request("GET", `${base}/${item.id}`)).json().model).toBe("HBA 534");
      const list = await t.request("GET", base);
      expect(list.json().map((e: { id: string }) => e.id)).toEqual([item.id]);
      const updated = await t.request("PUT", `${base}/${item.id}`, { body: { condition: "FAIR" } });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json()).toMatchObject({ condition: "FAIR", brand: "Bosch" });
      // A tenant's own equipment type is accepted too.
      const own = await t.request("POST", "/api/types/equipment", { body: { name: "Poêle à granulés" } });
      expect(own.statusCode, own.body).toBe(201);
      const second = await t.request("POST", base, { body: { equipment_type_id: own.json().id } });
      expect(second.statusCode, second.body).toBe(201);
      const roomUrl = `/api/places/${fx.place()}/estates/${estate}/rooms/${room}`;
      const blocked = await t.request("DELETE", roomUrl);
      expect(blocked.statusCode).toBe(409);
      expect(blocked.json().message).toMatch(/holds 2 item/);
      expect((await t.request("DELETE", `${base}/${item.id}`)).statusCode).toBe(204);
      expect((await t.request("GET", `${base}/${item.id}`)).statusCode).toBe(404);
      expect((await t.request("DELETE", `${base}/${second.json().id}`)).statusCode).toBe(204);
      expect((await t.request("DELETE", roomUrl)).statusCode).toBe(204);
    });

    it("refuses an unknown type, a bad condition, a room of another estate; another tenant gets 404", async () => {
      const estate = await fx.newEstate();
      const other = await fx.newEstate();
      const room = await newRoom(estate);
      const base = `/api/places/${fx.place()}/estates/${estate}/rooms/${room}/equipment`;
      await fx.writesNothing(async () => {
        const unknownType = await t.request("POST", base, { body: { equipment_type_id: unknownId } });
        expect(unknownType.statusCode).toBe(400);
        expect(fields(unknownType)).toEqual(["equipment_type_id"]);
        const badCondition = await t.request("POST", base, {
          body: { equipment_type_id: globalTypeIds.equipment.oven, condition: "BROKEN" },
        });
        expect(badCondition.statusCode).toBe(400);
        const wrongEstate = await t.request(
          "POST",
          `/api/places/${fx.place()}/estates/${other}/rooms/${room}/equipment`,
          { body: { equipment_type_id: globalTypeIds.equipment.oven } },
        );
        expect(wrongEstate.statusCode).toBe(400);
        expect((await t.request("GET", `${base}`, { as: t.other })).statusCode).toBe(404);
        const unknownRoom = `/api/places/${fx.place()}/estates/${estate}/rooms/${unknownId}/equipment`;
        expect((await t.request("GET", unknownRoom)).statusCode).toBe(404);
      });
    });
  });

  describe("condition reports", () => {
    const livingRoom = {
      name: "Séjour",
      elements: [
        { element: "Sol", condition: "GOOD" },
        { element: "Murs", condition: "GOOD", comment: "Peinture récente" },
        { element: "Radiateur", condition: "GOOD" },
      ],
    };
    const reportBody = (type: "ENTRY" | "EXIT", extra: Record<string, unknown> = {}) => ({
      type,
      date: "2026-01-01",
      rooms: [livingRoom],
      meter_readings: [{ kind: "Électricité", value: 12034.5 }],
      keys: [{ kind: "Porte d'entrée", count: 2 }],
      ...extra,
    });
    const post = async (lease: string, body: object) => {
      const res = await t.request("POST", `/api/leases/${lease}/condition-reports`, { body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const sign = (lease: string, id: string, signed_on = "2026-01-01") =>
      t.request("PUT", `/api/leases/${lease}/condition-reports/${id}/status`, {
        body: { status: "SIGNED", signed_on },
      });

    it("drafts, revises while DRAFT, signs, then freezes the report (409 on any change)", async () => {
      const { id: lease, estate_id } = await fx.newLease();
      const room = await newRoom(estate_id, "Séjour");
      const draft = await post(lease, reportBody("ENTRY", { rooms: [{ ...livingRoom, room_id: room }] }));
      expect(draft).toMatchObject({ lease_id: lease, type: "ENTRY", status: "DRAFT", signed_on: null });
      expect(draft.rooms[0]).toMatchObject({ room_id: room, name: "Séjour" });
      // A photo of an element: a media of the tenant.
      const form = multipartForm(
        {},
        { content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), filename: "sol.jpg", type: "image/jpeg" },
      );
      const uploaded = await t.app.inject({
        method: "POST",
        url: "/api/media",
        payload: form.payload,
        headers: { "content-type": form.type, authorization: `Bearer ${t.tenant.key}` },
      });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      const photo = uploaded.json().id as string;
      const withPhoto = await t.request("PUT", `/api/leases/${lease}/condition-reports/${draft.id}`, {
        body: reportBody("ENTRY", {
          rooms: [
            {
              room_id: room,
              name: "Séjour",
              elements: [{ element: "Sol", condition: "GOOD", media_ids: [photo] }],
            },
          ],
        }),
      });
      expect(withPhoto.statusCode, withPhoto.body).toBe(200);
      expect(withPhoto.json().rooms[0].elements[0].media_ids).toEqual([photo]);
      const got = await t.request("GET", `/api/leases/${lease}/condition-reports/${draft.id}`);
      expect(got.statusCode).toBe(200);
      const revised = await t.request("PUT", `/api/leases/${lease}/condition-reports/${draft.id}`, {
        body: { ...(got.json() as object), keys: [{ kind: "Porte d'entrée", count: 3 }] },
      });
      expect(revised.statusCode, revised.body).toBe(200);
      expect(revised.json().keys).toEqual([{ kind: "Porte d'entrée", count: 3 }]);
      const signed = await sign(lease, draft.id);
      expect(signed.statusCode, signed.body).toBe(200);
      expect(signed.json()).toMatchObject({ status: "SIGNED", signed_on: "2026-01-01" });
      await fx.writesNothing(async () => {
        const change = await t.request("PUT", `/api/leases/${lease}/condition-reports/${draft.id}`, {
          body: reportBody("ENTRY"),
        });
        expect(change.statusCode).toBe(409);
        expect(change.json().message).toMatch(/frozen.*2016-382/);
        expect((await sign(lease, draft.id)).statusCode).toBe(409);
      });
      const list = await t.request("GET", `/api/leases/${lease}/condition-reports`);
      expect(list.json().map((r: { id: string }) => r.id)).toEqual([draft.id]);
      expect(list.headers["x-total-count"]).toBe("1");
    });

    it("refuses a room of another estate, an unknown photo, a bad condition; isolates tenants", async () => {
      const { id: lease } = await fx.newLease();
      const foreignRoom = await newRoom(await fx.newEstate());
      await fx.writesNothing(async () => {
        const wrongRoom = await t.request("POST", `/api/leases/${lease}/condition-reports`, {
          body: reportBody("ENTRY", { rooms: [{ room_id: foreignRoom, name: "X", elements: [] }] }),
        });
        expect(wrongRoom.statusCode).toBe(400);
        expect(fields(wrongRoom)).toEqual(["rooms[0].room_id"]);
        const photo = await t.request("POST", `/api/leases/${lease}/condition-reports`, {
          body: reportBody("ENTRY", {
            rooms: [{ name: "X", elements: [{ element: "Sol", condition: "GOOD", media_ids: [unknownId] }] }],
          }),
        });
        expect(photo.statusCode).toBe(400);
        expect(fields(photo)).toEqual(["rooms[0].elements[0].media_ids[0]"]);
        const bad = await t.request("POST", `/api/leases/${lease}/condition-reports`, {
          body: reportBody("ENTRY", {
            rooms: [{ name: "X", elements: [{ element: "Sol", condition: "BROKEN" }] }],
          }),
        });
        expect(bad.statusCode).toBe(400);
        const noRooms = await t.request("POST", `/api/leases/${lease}/condition-reports`, {
          body: reportBody("ENTRY", { rooms: [] }),
        });
        expect(noRooms.statusCode).toBe(400);
        const unknownLease = await t.request("POST", `/api/leases/${unknownId}/condition-reports`, {
          body: reportBody("ENTRY"),
        });
        expect(unknownLease.statusCode).toBe(404);
      });
      const report = await post(lease, reportBody("ENTRY"));
      expect(
        (await t.request("GET", `/api/leases/${lease}/condition-reports/${report.id}`, { as: t.other }))
          .statusCode,
      ).toBe(404);
      expect(
        (await t.request("GET", `/api/leases/${lease}/condition-reports`, { as: t.other })).statusCode,
      ).toBe(404);
      const otherLease = (await fx.newLease()).id;
      expect(
        (await t.request("GET", `/api/leases/${otherLease}/condition-reports/${report.id}`)).statusCode,
      ).toBe(404);
      expect((await sign(otherLease, report.id)).statusCode).toBe(404);
    });

    it("the tenant completes a signed entry report within ten days of its signing: day 10 yes, day 11 no (art. 3-2)", async () => {
      const { id: lease } = await fx.newLease();
      const report = await post(lease, reportBody("ENTRY"));
      const complete = (received_on: string, heating = false, element = "Sol") =>
        t.request("POST", `/api/leases/${lease}/condition-reports/${report.id}/completions`, {
          body: {
            received_on,
            elements: [{ room_name: "Séjour", element, condition: "FAIR", comment: "Rayures", heating }],
          },
        });
      expect((await complete("2026-01-05")).statusCode).toBe(409); // still DRAFT: PUT it instead
      expect((await sign(lease, report.id)).statusCode).toBe(200);
      const day10 = await complete("2026-01-11");
      expect(day10.statusCode, day10.body).toBe(201);
      expect(day10.json().completions).toEqual([
        {
          received_on: "2026-01-11",
          elements: [
            {
              room_name: "Séjour",
              element: "Sol",
              condition: "FAIR",
              comment: "Rayures",
              media_ids: [],
              heating: false,
            },
          ],
        },
      ]);
      await fx.writesNothing(async () => {
        const day11 = await complete("2026-01-12");
        expect(day11.statusCode).toBe(422);
        expect(day11.json().message).toMatch(/art\. 3-2/);
        const unknownRoom = await t.request(
          "POST",
          `/api/leases/${lease}/condition-reports/${report.id}/completions`,
          {
            body: {
              received_on: "2026-01-05",
              elements: [{ room_name: "Grenier", element: "Sol", condition: "FAIR" }],
            },
          },
        );
        expect(unknownRoom.statusCode).toBe(400);
      });
      // Heating: the first month of the heating season (15 October to 14 November).
      expect((await complete("2026-10-14", true, "Radiateur")).statusCode).toBe(422);
      expect((await complete("2026-10-15", true, "Radiateur")).statusCode).toBe(201);
      expect((await complete("2026-11-14", true, "Radiateur")).statusCode).toBe(201);
    });

    it("compares an exit report with the entry room by room (worse, same, better) and tells whether it matches", async () => {
      const { id: lease } = await fx.newLease();
      const entry = await post(lease, reportBody("ENTRY"));
      expect((await sign(lease, entry.id)).statusCode).toBe(200);
      const exitBody = reportBody("EXIT", {
        date: "2026-06-30",
        rooms: [
          {
            name: "séjour",
            elements: [
              { element: "Sol", condition: "POOR", comment: "Tache" },
              { element: "Murs", condition: "GOOD" },
              { element: "Radiateur", condition: "NEW" },
            ],
          },
        ],
      });
      const exit = await post(lease, exitBody);
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, exit.id))?.matches ?? null).toBeNull(); // not signed
      expect((await sign(lease, exit.id, "2026-06-30")).statusCode).toBe(200);
      const res = await t.request("GET", `/api/leases/${lease}/condition-reports/${exit.id}/comparison`);
      expect(res.statusCode, res.body).toBe(200);
      const comparison = res.json();
      expect(comparison).toMatchObject({
        exit_report_id: exit.id,
        entry_report_id: entry.id,
        matches: false,
      });
      expect(comparison.rooms[0].change).toBe("WORSE");
      expect(comparison.rooms[0].elements.map((e: { change: string }) => e.change)).toEqual([
        "WORSE",
        "SAME",
        "BETTER",
      ]);
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, exit.id))?.matches ?? null).toBe(false);

      const same = await post(lease, reportBody("EXIT", { date: "2026-06-30" }));
      expect((await sign(lease, same.id, "2026-06-30")).statusCode).toBe(200);
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, same.id))?.matches ?? null).toBe(true);
      expect((await exitReportFacts(t.sql, t.other.id, lease, same.id))?.matches ?? null).toBeNull();
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, entry.id))?.matches ?? null).toBeNull();
      const ofEntry = await t.request("GET", `/api/leases/${lease}/condition-reports/${entry.id}/comparison`);
      expect(ofEntry.statusCode).toBe(409);
    });

    it("an entry completed by the tenant is what the exit is compared with", async () => {
      const { id: lease } = await fx.newLease();
      const entry = await post(lease, reportBody("ENTRY"));
      await sign(lease, entry.id);
      const completed = await t.request(
        "POST",
        `/api/leases/${lease}/condition-reports/${entry.id}/completions`,
        {
          body: {
            received_on: "2026-01-03",
            elements: [{ room_name: "Séjour", element: "Sol", condition: "POOR" }],
          },
        },
      );
      expect(completed.statusCode, completed.body).toBe(201);
      const exitRooms = [livingRoom].map((r) => ({
        ...r,
        elements: r.elements.map((e) => (e.element === "Sol" ? { ...e, condition: "POOR" } : e)),
      }));
      const exit = await post(lease, reportBody("EXIT", { rooms: exitRooms }));
      await sign(lease, exit.id);
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, exit.id))?.matches ?? null).toBe(true);
    });

    it("an exit with no signed entry report: comparison 409, does not match", async () => {
      const { id: lease } = await fx.newLease();
      const exit = await post(lease, reportBody("EXIT"));
      await sign(lease, exit.id);
      expect(
        (await t.request("GET", `/api/leases/${lease}/condition-reports/${exit.id}/comparison`)).statusCode,
      ).toBe(409);
      expect((await exitReportFacts(t.sql, t.tenant.id, lease, exit.id))?.matches ?? null).toBe(false);
    });

    it("renders the report as PDF, with the tenant's completions", async () => {
      const { id: lease } = await fx.newLease();
      const report = await post(lease, reportBody("ENTRY"));
      await sign(lease, report.id);
      const completed = await t.request(
        "POST",
        `/api/leases/${lease}/condition-reports/${report.id}/completions`,
        {
          body: {
            received_on: "2026-01-02",
            elements: [{ room_name: "Séjour", element: "Plinthes", condition: "POOR", comment: "Fendues" }],
          },
        },
      );
      expect(completed.statusCode, completed.body).toBe(201);
      const res = await t.request("GET", `/api/leases/${lease}/condition-reports/${report.id}/pdf`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers["content-type"]).toBe("application/pdf");
      const text = await pdfText(res.rawPayload);
      expect(text).toContain("État des lieux d'entrée");
      expect(text).toContain("Séjour");
      expect(text).toContain("Peinture récente");
      expect(text).toContain("2016-382");
      expect(text).toContain("Fendues");
      // Décret n° 2016-382 art. 2-3: date, dwelling, parties, readings, keys, rooms, signatures.
      const primary = (await t.request("GET", `/api/leases/${lease}/lessees`)).json()[0];
      const person = (await t.request("GET", `/api/lessees/${primary.lessee_id}`)).json();
      for (const mention of [
        "Établi contradictoirement le 1er janvier 2026",
        "Le logement et les parties",
        "Logement ",
        "Bailleur",
        `Locataire ${person.first_name} ${person.last_name}`,
        "Électricité : 12 034,5",
        "Porte d'entrée : 2",
        "Demande reçue le 2 janvier 2026",
        "Signatures",
        "Le bailleur ou son mandataire",
        "Signé le 1er janvier 2026",
      ])
        expect(text, mention).toContain(mention);
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/);
    });

    it("renders an exit report with the entry report's date and what changed (décret n° 2016-382 art. 2-3)", async () => {
      const { id: lease } = await fx.newLease();
      const entry = await post(lease, reportBody("ENTRY"));
      await sign(lease, entry.id);
      const worn = [livingRoom].map((r) => ({
        ...r,
        elements: r.elements.map((e) => (e.element === "Sol" ? { ...e, condition: "POOR" } : e)),
      }));
      const exit = await post(lease, reportBody("EXIT", { date: "2026-06-30", rooms: worn }));
      await sign(lease, exit.id, "2026-06-30");
      const res = await t.request("GET", `/api/leases/${lease}/condition-reports/${exit.id}/pdf`);
      expect(res.statusCode, res.body).toBe(200);
      const text = await pdfText(res.rawPayload);
      for (const mention of [
        "État des lieux de sortie",
        "Établi contradictoirement le 30 juin 2026",
        "Comparaison avec l'état des lieux d'entrée",
        "État des lieux d'entrée du 1er janvier 2026",
        "Séjour Sol Bon état Mauvais état",
        "Adresse du locataire après son départ",
      ])
        expect(text, mention).toContain(mention);
      expect(text).not.toMatch(/Murs Bon état Bon état/);
    });

    it("needs LeasesWrite to write and LeasesRead to read; If-Match guards a revision", async () => {
      const { id: lease } = await fx.newLease();
      const report = await post(lease, reportBody("ENTRY"));
      const url = `/api/leases/${lease}/condition-reports/${report.id}`;
      const got = await t.request("GET", url);
      const stale = await t.request("PUT", url, {
        body: reportBody("ENTRY"),
        headers: { "if-match": 'W/"99"' },
      });
      expect(stale.statusCode).toBe(412);
      const fresh = await t.request("PUT", url, {
        body: reportBody("ENTRY"),
        headers: { "if-match": got.headers.etag as string },
      });
      expect(fresh.statusCode, fresh.body).toBe(200);
      const reader = await t.newTenant(undefined, ["PropertiesRead"]);
      expect((await t.request("GET", url, { as: reader })).statusCode).toBe(403);
      expect(
        (
          await t.request("POST", `/api/leases/${lease}/condition-reports`, {
            body: reportBody("ENTRY"),
            as: reader,
          })
        ).statusCode,
      ).toBe(403);
    });

    it("the read model rebuilt from the log gives the same reports", async () => {
      const { id: lease } = await fx.newLease();
      const report = await post(lease, reportBody("ENTRY"));
      await sign(lease, report.id);
      await t.request("POST", `/api/leases/${lease}/condition-reports/${report.id}/completions`, {
        body: {
          received_on: "2026-01-02",
          elements: [{ room_name: "Séjour", element: "Sol", condition: "FAIR" }],
        },
      });
      const before = (await t.request("GET", `/api/leases/${lease}/condition-reports/${report.id}`)).json();
      await rebuildProjection(t.sql, t.service.platform.store, conditionReportsProjection);
      const after = await t.request("GET", `/api/leases/${lease}/condition-reports/${report.id}`);
      expect(after.json()).toEqual(before);
    });
  });

  describe("inventory of a furnished lease", () => {
    const all = REQUIRED_ITEMS.map((item) => ({ item, quantity: 1 }));
    const check = async (lease: string) => {
      const res = await t.request("GET", `/api/leases/${lease}/compliance`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().checks.find((c: { rule: string }) => c.rule === "FURNISHED_INVENTORY");
    };

    it("a missing required item is a compliance FAIL citing décret 2015-981 art. 2 and its number", async () => {
      const { id: lease } = await fx.newLease({ lease_type: "FURNISHED", deposit_amount: 1600 });
      expect((await check(lease)).status).toBe("UNKNOWN");
      expect((await t.request("GET", `/api/leases/${lease}/inventory`)).statusCode).toBe(404);
      const withoutHob = all.map((i) => (i.item === "HOB" ? { ...i, quantity: 0 } : i));
      const res = await t.request("PUT", `/api/leases/${lease}/inventory`, {
        body: {
          recorded_on: "2025-01-01",
          items: [...withoutHob, { item: "OTHER", quantity: 1, description: "Canapé" }],
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().verdict).toMatchObject({ rule: "FURNISHED_INVENTORY", status: "FAIL" });
      const failed = await check(lease);
      expect(failed.status).toBe("FAIL");
      expect(failed.message).toContain("HOB (décret n° 2015-981 du 31 juillet 2015, art. 2, 3°)");
      expect(failed.details.missing).toEqual([
        expect.objectContaining({
          item: "HOB",
          legal_reference: "décret n° 2015-981 du 31 juillet 2015, art. 2, 3°",
        }),
      ]);
      const compliance = await t.request("GET", `/api/leases/${lease}/compliance`);
      expect(compliance.json().status).toBe("NON_COMPLIANT");

      const full = await t.request("PUT", `/api/leases/${lease}/inventory`, {
        body: { recorded_on: "2025-01-01", items: all },
      });
      expect(full.statusCode, full.body).toBe(200);
      expect((await check(lease)).status).toBe("PASS");
    });

    it("does not apply to an unfurnished lease; unknown item and other tenants refused", async () => {
      const { id: lease } = await fx.newLease();
      expect((await check(lease)).status).toBe("NOT_APPLICABLE");
      await fx.writesNothing(async () => {
        const bad = await t.request("PUT", `/api/leases/${lease}/inventory`, {
          body: { items: [{ item: "PIANO", quantity: 1 }] },
        });
        expect(bad.statusCode).toBe(400);
        const foreign = await t.request("PUT", `/api/leases/${lease}/inventory`, {
          body: { items: all },
          as: t.other,
        });
        expect(foreign.statusCode).toBe(404);
      });
    });
  });
});
