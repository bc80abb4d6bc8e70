import { describe, expect, it } from "vitest";
import { conditionReportDecider } from "../../src/commands/conditionReports/decider.ts";
import { equipmentDecider } from "../../src/commands/equipment/decider.ts";
import { inventoryDecider } from "../../src/commands/inventories/decider.ts";
import type { ConditionReportEvent, ReportContent } from "../../src/events/conditionReports.ts";
import type { EquipmentEvent } from "../../src/events/equipment.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const report_id = "6a1c9d2e-0000-4000-8000-000000000001";
const lease_id = "6a1c9d2e-0000-4000-8000-00000000000a";
const otherLease = "6a1c9d2e-0000-4000-8000-00000000000b";
const ids = { report_id, lease_id };

const content: ReportContent = {
  type: "ENTRY",
  date: "2026-03-01",
  rooms: [
    {
      room_id: null,
      name: "Séjour",
      elements: [{ element: "Sol", condition: "GOOD", comment: null, media_ids: [] }],
    },
  ],
  meter_readings: [{ meter_id: null, kind: "Eau froide", value: 312 }],
  keys: [{ kind: "Porte", count: 2 }],
};
const drafted: ConditionReportEvent = { type: "ConditionReportDrafted", data: { ...ids, ...content } };
const signed: ConditionReportEvent = {
  type: "ConditionReportSigned",
  data: { ...ids, signed_on: "2026-03-01" },
};
const exitDrafted: ConditionReportEvent = {
  type: "ConditionReportDrafted",
  data: { ...ids, ...content, type: "EXIT" },
};
const complete = (received_on: string, heating = false) => ({
  type: "CompleteEntryReport" as const,
  ...ids,
  received_on,
  elements: [
    {
      room_name: "séjour",
      element: "Radiateur",
      condition: "POOR" as const,
      comment: "Froid",
      media_ids: [],
      heating,
    },
  ],
});

const { given } = deciderSpec(conditionReportDecider);

describe("condition report decider", () => {
  it("drafts a report once", () => {
    given([])
      .when({ type: "DraftConditionReport", ...ids, content })
      .then([drafted]);
    given([drafted])
      .when({ type: "DraftConditionReport", ...ids, content })
      .thenRefuses(409, /already exists/);
  });

  it("revises a DRAFT; a SIGNED report is frozen (409, décret 2016-382)", () => {
    const revised = { ...content, keys: [{ kind: "Porte", count: 3 }] };
    given([drafted])
      .when({ type: "ReviseConditionReport", ...ids, content: revised })
      .then([{ type: "ConditionReportRevised", data: { ...ids, ...revised } }]);
    given([drafted, signed])
      .when({ type: "ReviseConditionReport", ...ids, content: revised })
      .thenRefuses(409, /SIGNED.*frozen.*2016-382/);
  });

  it("signs a DRAFT once, not before the report's date", () => {
    given([drafted])
      .when({ type: "SignConditionReport", ...ids, signed_on: "2026-03-01" })
      .then([signed]);
    given([drafted])
      .when({ type: "SignConditionReport", ...ids, signed_on: "2026-02-28" })
      .thenRefuses(400, undefined, ["signed_on"]);
    given([drafted, signed])
      .when({ type: "SignConditionReport", ...ids, signed_on: "2026-03-02" })
      .thenRefuses(409);
  });

  it("another lease's report or no report is unknown (404)", () => {
    given([drafted])
      .when({ type: "SignConditionReport", report_id, lease_id: otherLease, signed_on: "2026-03-01" })
      .thenRefuses(404, /Condition report .* not found/);
    given([])
      .when({ type: "ReviseConditionReport", ...ids, content })
      .thenRefuses(404);
  });

  it("the tenant completes a signed entry report until day 10 after its signing (art. 3-2)", () => {
    const day10 = complete("2026-03-11");
    given([drafted, signed])
      .when(day10)
      .then([
        {
          type: "ConditionReportCompleted",
          data: { ...ids, received_on: "2026-03-11", elements: day10.elements },
        },
      ]);
    given([drafted, signed])
      .when(complete("2026-03-12"))
      .thenRefuses(422, /art\. 3-2/, ["received_on"]);
    // A heating element: the first month of the heating season reopens it.
    expect(given([drafted, signed]).when(complete("2026-10-15", true)).thenEvents()).toHaveLength(1);
    given([drafted, signed]).when(complete("2026-11-15", true)).thenRefuses(422);
  });

  it("completes neither a DRAFT, nor an exit report, nor a room the report does not have", () => {
    given([drafted]).when(complete("2026-03-02")).thenRefuses(409, /DRAFT/);
    given([exitDrafted, signed])
      .when(complete("2026-03-02"))
      .thenRefuses(409, /Only an entry report/);
    const attic = complete("2026-03-02");
    attic.elements[0].room_name = "Grenier";
    given([drafted, signed]).when(attic).thenRefuses(400, undefined, ["elements[0].room_name"]);
  });

  it("the fold keeps the completions in order", () => {
    const state = given([
      drafted,
      signed,
      { type: "ConditionReportCompleted", data: { ...ids, received_on: "2026-03-02", elements: [] } },
    ]).state;
    expect(state).toMatchObject({
      status: "SIGNED",
      signed_on: "2026-03-01",
      completions: [{ received_on: "2026-03-02" }],
    });
  });
});

describe("inventory decider", () => {
  it("records the inventory, each time replacing the one before", () => {
    const items = [{ item: "HOB", quantity: 1, description: null, room_name: null, condition: null }];
    const recorded = {
      type: "InventoryRecorded" as const,
      data: { lease_id, recorded_on: "2026-03-01", items },
    };
    deciderSpec(inventoryDecider)
      .given([recorded])
      .when({ type: "RecordInventory", lease_id, recorded_on: "2026-03-01", items })
      .then([recorded]);
  });
});

describe("equipment decider", () => {
  const equipment_id = "6a1c9d2e-0000-4000-8000-0000000000e1";
  const room_id = "6a1c9d2e-0000-4000-8000-0000000000f1";
  const installed: EquipmentEvent = {
    type: "EquipmentInstalled",
    data: {
      equipment_id,
      room_id,
      equipment_type_id: globalTypeIds.equipment.boiler,
      brand: "Saunier Duval",
      model: null,
      installed_on: "2020-05-01",
      condition: "GOOD",
      comment: null,
    },
  };
  const spec = deciderSpec(equipmentDecider);
  it("installs equipment of an existing type; an unknown type is a 400 on equipment_type_id", () => {
    const input = {
      equipment_type_id: globalTypeIds.equipment.boiler,
      brand: "Saunier Duval",
      installed_on: "2020-05-01",
      condition: "GOOD" as const,
    };
    spec
      .given([])
      .when({ type: "InstallEquipment", equipment_id, room_id, input, equipment_type_exists: true })
      .then([installed]);
    spec
      .given([])
      .when({ type: "InstallEquipment", equipment_id, room_id, input, equipment_type_exists: false })
      .thenRefuses(400, undefined, ["equipment_type_id"]);
  });
  it("updates only what changed", () => {
    spec
      .given([installed])
      .when({ type: "UpdateEquipment", equipment_id, room_id, input: { condition: "POOR" } })
      .then([{ type: "EquipmentUpdated", data: { equipment_id, room_id, changes: { condition: "POOR" } } }]);
  });
});
