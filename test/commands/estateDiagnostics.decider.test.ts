import { describe, expect, it } from "vitest";
import {
  type EstateDiagnosticInput,
  type EstateDiagnosticsCommand,
  estateDiagnosticsDecider,
} from "../../src/commands/estateDiagnostics/decider.ts";
import type { EstateDiagnosticEvent } from "../../src/events/estateDiagnostics.ts";
import { fold } from "../../src/platform/decider.ts";
import {
  createEstateDiagnosticBody,
  listEstateDiagnosticsQuery,
} from "../../src/queries/estateDiagnosticsSchemas.ts";
import { deciderSpec, refusal, validBody } from "../support/deciderSpec.ts";

const estateId = "7c1d0000-0000-4000-8000-00000000e57a";
const ids = [
  "7c1d0000-0000-4000-8000-000000000001",
  "7c1d0000-0000-4000-8000-000000000002",
  "7c1d0000-0000-4000-8000-000000000003",
];
const mediaId = "7c1d0000-0000-4000-8000-00000000aed1";
const now = "2025-06-15T10:00:00.000Z";

const { given } = deciderSpec(estateDiagnosticsDecider);

const record = (
  id: string,
  over: Partial<EstateDiagnosticInput> = {},
  known: { estate: boolean; media?: boolean } = { estate: true },
): EstateDiagnosticsCommand => ({
  type: "RecordEstateDiagnostic",
  estate_id: estateId,
  id,
  fields: { type: "electrical", diagnosis_date: "2025-03-01", ...over },
  known,
  now,
});

const recorded = (id: string, type: EstateDiagnosticInput["type"] = "electrical"): EstateDiagnosticEvent => ({
  type: "EstateDiagnosticRecorded",
  data: {
    diagnostic_id: id,
    estate_id: estateId,
    type,
    diagnosis_date: "2024-03-01",
    valid_until: null,
    reference: null,
    provider: null,
    notes: null,
    media_id: null,
  },
});

describe("estate diagnostics decider", () => {
  it("records the first diagnostic of a type, absent fields as null", () => {
    expect(given([]).when(record(ids[0], { valid_until: "2031-03-01", provider: "Diag Expert" }))()).toEqual([
      {
        type: "EstateDiagnosticRecorded",
        data: {
          diagnostic_id: ids[0],
          estate_id: estateId,
          type: "electrical",
          diagnosis_date: "2025-03-01",
          valid_until: "2031-03-01",
          reference: null,
          provider: "Diag Expert",
          notes: null,
          media_id: null,
        },
      },
    ]);
  });

  it("deactivates the previous active diagnostic of the same type in the same decision", () => {
    const events = given([recorded(ids[0])]).when(record(ids[1]))();
    expect(events.map((e) => e.type)).toEqual(["EstateDiagnosticDeactivated", "EstateDiagnosticRecorded"]);
    expect(events[0].data).toEqual({ diagnostic_id: ids[0], estate_id: estateId, replaced_by: ids[1] });
    const state = fold(estateDiagnosticsDecider, [recorded(ids[0]), ...events]);
    expect(state.diagnostics).toEqual({
      [ids[0]]: { type: "electrical", active: false },
      [ids[1]]: { type: "electrical", active: true },
    });
  });

  it("leaves other types and already inactive diagnostics alone", () => {
    const history = [
      recorded(ids[0]),
      {
        type: "EstateDiagnosticDeactivated",
        data: { diagnostic_id: ids[0], estate_id: estateId, replaced_by: ids[1] },
      },
      recorded(ids[1]),
      recorded(ids[2], "gas"),
    ] satisfies EstateDiagnosticEvent[];
    const id = "7c1d0000-0000-4000-8000-000000000004";
    const events = given(history).when(record(id))();
    expect(events.map((e) => [e.type, e.data.diagnostic_id])).toEqual([
      ["EstateDiagnosticDeactivated", ids[1]],
      ["EstateDiagnosticRecorded", id],
    ]);
    expect(
      given(history)
        .when(record(id, { type: "lead" }))()
        .map((e) => e.type),
    ).toEqual(["EstateDiagnosticRecorded"]);
  });

  it("does not deactivate a deleted diagnostic", () => {
    const history: EstateDiagnosticEvent[] = [
      recorded(ids[0]),
      { type: "EstateDiagnosticDeleted", data: { diagnostic_id: ids[0], estate_id: estateId } },
    ];
    expect(
      given(history)
        .when(record(ids[1]))()
        .map((e) => e.type),
    ).toEqual(["EstateDiagnosticRecorded"]);
  });

  it("answers 404 for an unknown estate", () => {
    const error = refusal(given([]).when(record(ids[0], {}, { estate: false })));
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Estate ${estateId} not found`);
  });

  it("refuses (400) a future diagnosis_date, valid_until not after it, an unknown media", () => {
    const fieldsOf = (command: EstateDiagnosticsCommand) => {
      const error = refusal(given([]).when(command));
      expect(error.status).toBe(400);
      return error.details?.map((d) => d.field);
    };
    expect(fieldsOf(record(ids[0], { diagnosis_date: "2025-06-16" }))).toEqual(["diagnosis_date"]);
    expect(fieldsOf(record(ids[0], { valid_until: "2025-03-01" }))).toEqual(["valid_until"]);
    expect(fieldsOf(record(ids[0], { media_id: mediaId }, { estate: true, media: false }))).toEqual([
      "media_id",
    ]);
    expect(
      given([]).when(record(ids[0], { media_id: mediaId }, { estate: true, media: true }))(),
    ).toHaveLength(1);
  });

  it("refuses to record the same id twice (409)", () => {
    expect(refusal(given([recorded(ids[0])]).when(record(ids[0]))).status).toBe(409);
  });

  it("deletes a diagnostic once, then answers 404", () => {
    const del: EstateDiagnosticsCommand = { type: "DeleteEstateDiagnostic", estate_id: estateId, id: ids[0] };
    const events = given([recorded(ids[0])]).when(del)();
    expect(events).toEqual([
      { type: "EstateDiagnosticDeleted", data: { diagnostic_id: ids[0], estate_id: estateId } },
    ]);
    expect(refusal(given([recorded(ids[0]), ...events]).when(del)).status).toBe(404);
    expect(refusal(given([]).when(del)).status).toBe(404);
  });
});

describe("estate diagnostics schemas (400)", () => {
  const fieldsOf = (schema: any, value: unknown) => {
    const error = refusal(() => validBody(schema, value));
    expect(error.status).toBe(400);
    return (error.details ?? []).map((d) => d.field);
  };
  const body = { type: "asbestos", diagnosis_date: "2024-05-02" };

  it("accepts each type", () => {
    for (const type of ["lead", "asbestos", "electrical", "gas", "risk_assessment", "coownership_rules"]) {
      expect(validBody(createEstateDiagnosticBody, { ...body, type })).toMatchObject({ type });
    }
  });

  it.each([
    ["type", undefined],
    ["type", "energy"],
    ["type", "LEAD"],
    ["diagnosis_date", undefined],
    ["diagnosis_date", "2024-02-30"],
    ["valid_until", "tomorrow"],
    ["reference", "x".repeat(101)],
    ["reference", ""],
    ["provider", "x".repeat(256)],
    ["notes", "x".repeat(1001)],
    ["notes", "\u0000"],
    ["provider", "\ud800"],
    ["media_id", "abc"],
  ])("refuses %s = %j", (field, value) => {
    expect(fieldsOf(createEstateDiagnosticBody, { ...body, [field]: value })).toEqual([field]);
  });

  it("refuses unknown fields", () => {
    expect(fieldsOf(createEstateDiagnosticBody, { ...body, active: false })).toEqual(["active"]);
  });

  it("list query: active, type, page, limit", () => {
    expect(validBody(listEstateDiagnosticsQuery, { active: "true", type: "gas" })).toEqual({
      page: 1,
      limit: 100,
      active: "true",
      type: "gas",
    });
    expect(fieldsOf(listEstateDiagnosticsQuery, { active: "yes" })).toEqual(["active"]);
  });
});
