import { describe, expect, it } from "vitest";
import {
  addYears,
  type EnergyDiagnosisCommand,
  type EnergyDiagnosisInput,
  energyClassOf,
  energyDiagnosisDecider,
  gesClassOf,
  type KnownIds,
} from "../../src/commands/energyDiagnoses/decider.ts";
import {
  type EnergyDiagnosisEvent,
  type EnergyLabel,
  labelScaleOn,
  legalValidUntil,
} from "../../src/events/energyDiagnoses.ts";
import { fold } from "../../src/platform/decider.ts";
import { parisDate } from "../../src/platform/formatDates.ts";
import {
  createEnergyDiagnosisBody,
  listEnergyDiagnosesQuery,
  updateEnergyDiagnosisBody,
} from "../../src/queries/energyDiagnosesSchemas.ts";
import { deciderSpec, refusal, validBody } from "../support/deciderSpec.ts";

const id = "5a0c7e2e-0000-4000-8000-00000000d1a9";
const placeId = "5a0c7e2e-0000-4000-8000-0000000091ac";
const estateId = "5a0c7e2e-0000-4000-8000-00000000e57a";
const mediaId = "5a0c7e2e-0000-4000-8000-00000000aed1";
const now = "2025-06-15T10:00:00.000Z";

const { given } = deciderSpec(energyDiagnosisDecider);

const input = (over: Partial<EnergyDiagnosisInput> = {}): EnergyDiagnosisInput => ({
  place_id: placeId,
  reference_number: "DPE-2025-0001",
  diagnosis_date: "2025-01-10",
  valid_until: "2035-01-10",
  energy_label: "D",
  ges_label: "C",
  construction_year: 1975,
  ...over,
});

const record = (
  over: Partial<EnergyDiagnosisInput> = {},
  known: KnownIds = { place: true },
): EnergyDiagnosisCommand => ({
  type: "RecordEnergyDiagnosis",
  id,
  fields: input(over),
  known,
  now,
});

const recorded: EnergyDiagnosisEvent = {
  type: "EnergyDiagnosisRecorded",
  data: {
    diagnosis_id: id,
    place_id: placeId,
    estate_id: null,
    reference_number: "DPE-2025-0001",
    diagnosis_date: "2025-01-10",
    valid_until: "2035-01-10",
    energy_label: "D",
    ges_label: "C",
    construction_year: 1975,
    energy_consumption: 200,
    final_energy_consumption: null,
    ges_emission: 15,
    heated_area: 62.5,
    notes: "Chaudière gaz",
    media_id: null,
  },
};

const update = (changes: Record<string, unknown>, known: KnownIds = {}): EnergyDiagnosisCommand => ({
  type: "UpdateEnergyDiagnosis",
  id,
  changes,
  known,
  now,
});

/** The 422 details of a refused command, as `field` list. */
const rulesBroken = (run: () => unknown) => {
  const error = refusal(run);
  expect(error.status).toBe(422);
  expect(error.code).toBe("UnprocessableEntity");
  return (error.details ?? []).map((d) => d.field);
};

describe("energy diagnosis decider: create", () => {
  it("records a diagnosis, absent optional fields as null", () => {
    expect(given([]).when(record())()).toEqual([
      {
        type: "EnergyDiagnosisRecorded",
        data: {
          diagnosis_id: id,
          place_id: placeId,
          estate_id: null,
          reference_number: "DPE-2025-0001",
          diagnosis_date: "2025-01-10",
          valid_until: "2035-01-10",
          energy_label: "D",
          ges_label: "C",
          construction_year: 1975,
          energy_consumption: null,
          final_energy_consumption: null,
          ges_emission: null,
          heated_area: null,
          notes: null,
          media_id: null,
        },
      },
    ]);
  });

  it("records an estate-level diagnosis", () => {
    const [event] = given([]).when(record({ place_id: null, estate_id: estateId }, { estate: true }))();
    expect(event.data).toMatchObject({ place_id: null, estate_id: estateId });
  });

  it("needs exactly one of place_id and estate_id (422)", () => {
    expect(rulesBroken(given([]).when(record({ place_id: undefined })))).toEqual(["place_id"]);
    expect(rulesBroken(given([]).when(record({ place_id: null, estate_id: null })))).toEqual(["place_id"]);
    expect(
      rulesBroken(given([]).when(record({ estate_id: estateId }, { place: true, estate: true }))),
    ).toEqual(["estate_id"]);
  });

  it("refuses an unknown place, estate or media (422)", () => {
    expect(rulesBroken(given([]).when(record({}, { place: false })))).toEqual(["place_id"]);
    expect(
      rulesBroken(given([]).when(record({ place_id: null, estate_id: estateId }, { estate: false }))),
    ).toEqual(["estate_id"]);
    expect(rulesBroken(given([]).when(record({ media_id: mediaId }, { place: true, media: false })))).toEqual(
      ["media_id"],
    );
    const [ok] = given([]).when(record({ media_id: mediaId }, { place: true, media: true }))();
    expect(ok.data).toMatchObject({ media_id: mediaId });
  });

  it("refuses valid_until on or before diagnosis_date (422)", () => {
    expect(rulesBroken(given([]).when(record({ valid_until: "2025-01-10" })))).toEqual(["valid_until"]);
    expect(rulesBroken(given([]).when(record({ valid_until: "2024-12-31" })))).toEqual(["valid_until"]);
    expect(given([]).when(record({ valid_until: "2025-01-11" }))()).toHaveLength(1);
  });

  it("allows exactly 10 years of validity, not one day more (422)", () => {
    expect(given([]).when(record({ valid_until: "2035-01-10" }))()).toHaveLength(1);
    expect(rulesBroken(given([]).when(record({ valid_until: "2035-01-11" })))).toEqual(["valid_until"]);
    // 29 February + 10 years is 28 February.
    expect(
      given([]).when(record({ diagnosis_date: "2024-02-29", valid_until: "2034-02-28" }))(),
    ).toHaveLength(1);
    expect(
      rulesBroken(given([]).when(record({ diagnosis_date: "2024-02-29", valid_until: "2034-03-01" }))),
    ).toEqual(["valid_until"]);
  });

  it("refuses a diagnosis_date in the future (422), Paris time", () => {
    expect(
      rulesBroken(given([]).when(record({ diagnosis_date: "2025-06-16", valid_until: "2030-01-01" }))),
    ).toEqual(["diagnosis_date"]);
    expect(
      given([]).when(record({ diagnosis_date: "2025-06-15", valid_until: "2030-01-01" }))(),
    ).toHaveLength(1);
    // 23:30 UTC on 14 June is already 15 June in Paris.
    const late = {
      ...record({ diagnosis_date: "2025-06-15", valid_until: "2030-01-01" }),
      now: "2025-06-14T23:30:00Z",
    };
    expect(given([]).when(late)()).toHaveLength(1);
  });

  it("lists every broken rule at once", () => {
    const fields = rulesBroken(
      given([]).when(
        record(
          {
            estate_id: estateId,
            diagnosis_date: "2026-01-01",
            valid_until: "2025-01-01",
            energy_consumption: 500,
          },
          { place: false, estate: false },
        ),
      ),
    );
    expect(fields).toEqual(
      expect.arrayContaining(["estate_id", "place_id", "diagnosis_date", "valid_until", "energy_label"]),
    );
  });

  it("refuses to record the same id twice (409)", () => {
    expect(refusal(given([recorded]).when(record())).status).toBe(409);
  });
});

/** Each class's bounds as [value, class] pairs: 0, each upper bound, just above it, and beyond. */
function boundsOf(upper: readonly number[], step: number): [number, EnergyLabel][] {
  const classes: EnergyLabel[] = ["A", "B", "C", "D", "E", "F", "G"];
  const pairs: [number, EnergyLabel][] = [[0, "A"]];
  upper.forEach((max, i) => {
    pairs.push([max, classes[i]], [max + step, classes[i + 1]]);
  });
  pairs.push([upper[upper.length - 1] * 10, "G"]);
  return pairs;
}

/**
 * The scale of the method in force on the diagnosis date (docs/dpe.md): the arrêté du 15 septembre
 * 2006's up to 2021-06-30 (docs/specification.md's with F up to 450), the arrêté du 31 mars 2021's from 2021-07-01.
 */
const scales = [
  {
    method: "before 2021-07-01 (arrêté du 15 septembre 2006)",
    date: "2021-06-30",
    validUntil: "2031-06-30",
    energy: boundsOf([50, 90, 150, 230, 330, 450], 0.01),
    ges: boundsOf([5, 10, 20, 35, 55, 80], 0.5),
  },
  {
    method: "from 2021-07-01 (arrêté du 31 mars 2021)",
    date: "2021-07-01",
    validUntil: "2031-07-01",
    energy: boundsOf([70, 110, 180, 250, 330, 420], 0.01),
    ges: boundsOf([6, 11, 30, 50, 70, 100], 0.5),
  },
  {
    method: "30 m² made on 2024-06-30 (the day before the arrêté du 25 mars 2024: standard scale)",
    date: "2024-06-30",
    validUntil: "2034-06-30",
    surface: 30,
    energy: boundsOf([70, 110, 180, 250, 330, 420], 0.01),
    ges: boundsOf([6, 11, 30, 50, 70, 100], 0.5),
  },
  {
    method: "30 m² made on 2024-07-01 (arrêté du 25 mars 2024)",
    date: "2024-07-01",
    validUntil: "2034-07-01",
    surface: 30,
    energy: boundsOf([76, 116, 197, 267, 349, 439], 0.01),
    ges: boundsOf([7, 12, 32, 52, 72, 102], 0.5),
  },
  {
    method: "20 m² from 2024-07-01",
    date: "2025-03-01",
    validUntil: "2035-03-01",
    surface: 20,
    energy: boundsOf([88, 128, 230, 300, 385, 476], 0.01),
    ges: boundsOf([8, 13, 34, 54, 74, 104], 0.5),
  },
  {
    method: "5 m² from 2024-07-01 (below 8 m²: the 8 m² row)",
    date: "2025-03-01",
    validUntil: "2035-03-01",
    surface: 5,
    energy: boundsOf([146, 186, 386, 505, 622, 739], 0.01),
    ges: boundsOf([11, 16, 44, 68, 90, 122], 0.5),
  },
  {
    method: "39.4 m² from 2024-07-01 (the 39 m² row)",
    date: "2025-03-01",
    validUntil: "2035-03-01",
    surface: 39.4,
    energy: boundsOf([71, 111, 182, 252, 332, 422], 0.01),
    ges: boundsOf([7, 12, 31, 51, 71, 101], 0.5),
  },
  {
    method: "39.5 m² from 2024-07-01 (rounds to 40: standard scale)",
    date: "2025-03-01",
    validUntil: "2035-03-01",
    surface: 39.5,
    energy: boundsOf([70, 110, 180, 250, 330, 420], 0.01),
    ges: boundsOf([6, 11, 30, 50, 70, 100], 0.5),
  },
];

describe.each(scales)("energy diagnosis decider: labels against values, $method", (scale) => {
  const labels: EnergyLabel[] = ["A", "B", "C", "D", "E", "F", "G"];
  const surface = "surface" in scale ? (scale.surface as number) : 62.5;
  const on = { diagnosis_date: scale.date, valid_until: scale.validUntil, heated_area: surface };

  it.each(scale.energy)("energy %d kWh/m²/year is class %s", (value, klass) => {
    expect(energyClassOf(value, scale.date, surface)).toBe(klass);
  });
  it.each(scale.ges)("GES %d kg CO2/m²/year is class %s", (value, klass) => {
    expect(gesClassOf(value, scale.date, surface)).toBe(klass);
  });

  it.each(scale.energy)(
    "energy %d: its class and worse labels pass, better labels are a 422",
    (value, klass) => {
      for (const label of labels) {
        const run = given([]).when(
          record({ ...on, energy_consumption: value, energy_label: label, ges_label: "G" }),
        );
        if (label >= klass) expect(run()).toHaveLength(1);
        else expect(rulesBroken(run)).toEqual(["energy_label"]);
      }
    },
  );

  it.each(scale.ges)("GES %d: its class and worse labels pass, better labels are a 422", (value, klass) => {
    for (const label of labels) {
      const run = given([]).when(record({ ...on, ges_emission: value, ges_label: label, energy_label: "G" }));
      if (label >= klass) expect(run()).toHaveLength(1);
      else expect(rulesBroken(run)).toEqual(["ges_label"]);
    }
  });

  it("checks no label when its value is absent", () => {
    expect(given([]).when(record({ ...on, energy_label: "A", ges_label: "A" }))()).toHaveLength(1);
  });
});

describe("energy diagnosis decider: the scale follows the diagnosis date", () => {
  it("a 2021-method certificate of 65 kWh labelled A, or 175 labelled C, is accepted", () => {
    expect(
      given([]).when(record({ energy_consumption: 65, energy_label: "A", ges_label: "G" }))(),
    ).toHaveLength(1);
    expect(
      given([]).when(record({ energy_consumption: 175, energy_label: "C", ges_label: "G" }))(),
    ).toHaveLength(1);
  });

  it("65 kWh labelled A is refused the day before 2021-07-01 and accepted on it, the message naming the scale", () => {
    const before = refusal(
      given([]).when(
        record({
          diagnosis_date: "2021-06-30",
          valid_until: "2031-06-30",
          energy_consumption: 65,
          energy_label: "A",
          ges_label: "G",
        }),
      ),
    );
    expect(before.status).toBe(422);
    expect(before.details?.[0].message).toMatch(/class B .* before 2021-07-01/);
    const on = given([]).when(
      record({
        diagnosis_date: "2021-07-01",
        valid_until: "2031-07-01",
        energy_consumption: 65,
        energy_label: "A",
        ges_label: "G",
      }),
    );
    expect(on()).toHaveLength(1);
  });

  it("an update moving the diagnosis date before 2021-07-01 re-checks the labels on the old scale", () => {
    const modern = given([]).when(record({ energy_consumption: 65, energy_label: "A", ges_label: "G" }))();
    const err = refusal(
      given(modern as EnergyDiagnosisEvent[]).when(
        update({ diagnosis_date: "2021-06-30", valid_until: "2031-06-30" }),
      ),
    );
    expect(err.status).toBe(422);
    expect(err.details?.map((d) => d.field)).toEqual(["energy_label"]);
  });
});

describe("energy diagnosis decider: dwellings under 40 m² (arrêté du 25 mars 2024)", () => {
  const small = (over: Partial<EnergyDiagnosisInput>) =>
    given([]).when(
      record({
        diagnosis_date: "2024-07-01",
        valid_until: "2034-07-01",
        energy_consumption: 349,
        energy_label: "E",
        ges_label: "G",
        heated_area: 30,
        ...over,
      }),
    );
  it("349 kWh labelled E at 30 m² is accepted from 2024-07-01, refused the day before, naming the scale", () => {
    expect(small({})()).toHaveLength(1);
    const before = refusal(small({ diagnosis_date: "2024-06-30", valid_until: "2034-06-30" }));
    expect(before.details?.[0].message).toMatch(
      /class F .*arrêté du 31 mars 2021 \(DPE made from 2021-07-01\)/,
    );
    const over = refusal(small({ energy_consumption: 349.01 }));
    expect(over.details?.[0].message).toMatch(/class F .*25 mars 2024 for a reference surface of 30 m²/);
  });
  it("without heated_area the standard scale applies and the 422 says what to give", () => {
    const err = refusal(small({ heated_area: null }));
    expect(err.status).toBe(422);
    expect(err.details?.[0].message).toContain("give heated_area");
  });
  it("every adjusted bound is at least the standard one: a label accepted before stays accepted", () => {
    const standard = labelScaleOn("2024-07-01");
    for (let surface = 1; surface <= 45; surface += 0.5) {
      const scale = labelScaleOn("2024-07-01", surface);
      scale.energy.forEach((bound, i) => {
        expect(bound).toBeGreaterThanOrEqual(standard.energy[i]);
      });
      scale.ges.forEach((bound, i) => {
        expect(bound).toBeGreaterThanOrEqual(standard.ges[i]);
      });
    }
  });
});

describe("energy diagnosis decider: update", () => {
  it("records only the changed fields; omitted keeps, null removes", () => {
    const events = given([recorded]).when(update({ notes: null, heated_area: 70, energy_label: "D" }))();
    expect(events).toEqual([
      {
        type: "EnergyDiagnosisUpdated",
        data: { diagnosis_id: id, changes: { notes: null, heated_area: 70 } },
      },
    ]);
    const state = fold(energyDiagnosisDecider, [recorded, ...events]);
    expect(state).toMatchObject({
      status: "recorded",
      fields: { notes: null, heated_area: 70, reference_number: "DPE-2025-0001", energy_consumption: 200 },
    });
  });

  it("records an empty change (updated_at moves) when nothing differs", () => {
    expect(given([recorded]).when(update({}))()).toEqual([
      { type: "EnergyDiagnosisUpdated", data: { diagnosis_id: id, changes: {} } },
    ]);
  });

  it("re-checks the rules on the merged diagnosis", () => {
    // valid_until alone moved past 10 years of the stored diagnosis_date
    expect(rulesBroken(given([recorded]).when(update({ valid_until: "2035-01-11" })))).toEqual([
      "valid_until",
    ]);
    // diagnosis_date alone moved after the stored valid_until
    expect(rulesBroken(given([recorded]).when(update({ diagnosis_date: "2024-01-09" })))).toEqual([
      "valid_until",
    ]);
    // a label made better than the stored value
    expect(rulesBroken(given([recorded]).when(update({ energy_label: "C" })))).toEqual(["energy_label"]);
    // a value made worse than the stored label
    expect(rulesBroken(given([recorded]).when(update({ ges_emission: 31 })))).toEqual(["ges_label"]);
    // removing the value removes the check
    expect(given([recorded]).when(update({ energy_consumption: null, energy_label: "A" }))()).toHaveLength(1);
  });

  it("keeps exactly one of place_id and estate_id", () => {
    expect(rulesBroken(given([recorded]).when(update({ estate_id: estateId }, { estate: true })))).toEqual([
      "estate_id",
    ]);
    expect(rulesBroken(given([recorded]).when(update({ place_id: null })))).toEqual(["place_id"]);
    const moved = given([recorded]).when(update({ place_id: null, estate_id: estateId }, { estate: true }))();
    expect(moved[0].data).toEqual({ diagnosis_id: id, changes: { place_id: null, estate_id: estateId } });
    expect(
      rulesBroken(given([recorded]).when(update({ place_id: null, estate_id: estateId }, { estate: false }))),
    ).toEqual(["estate_id"]);
  });

  it("refuses an unknown media_id on update (422)", () => {
    expect(rulesBroken(given([recorded]).when(update({ media_id: mediaId }, { media: false })))).toEqual([
      "media_id",
    ]);
  });

  it("answers 404 for an unknown or deleted diagnosis", () => {
    expect(refusal(given([]).when(update({ notes: "x" }))).status).toBe(404);
    const deleted: EnergyDiagnosisEvent = { type: "EnergyDiagnosisDeleted", data: { diagnosis_id: id } };
    expect(refusal(given([recorded, deleted]).when(update({ notes: "x" }))).status).toBe(404);
  });
});

describe("energy diagnosis decider: delete", () => {
  it("deletes once, then answers 404", () => {
    const events = given([recorded]).when({ type: "DeleteEnergyDiagnosis", id })();
    expect(events).toEqual([{ type: "EnergyDiagnosisDeleted", data: { diagnosis_id: id } }]);
    expect(refusal(given([recorded, ...events]).when({ type: "DeleteEnergyDiagnosis", id })).status).toBe(
      404,
    );
    expect(refusal(given([]).when({ type: "DeleteEnergyDiagnosis", id })).status).toBe(404);
  });
});

describe("energy diagnosis schemas (400)", () => {
  const body = {
    place_id: placeId,
    reference_number: "DPE-1",
    diagnosis_date: "2025-01-10",
    valid_until: "2035-01-10",
    energy_label: "D",
    ges_label: "C",
    construction_year: 1975,
  };
  const fieldsOf = (schema: any, value: unknown) => {
    const error = refusal(() => validBody(schema, value));
    expect(error.status).toBe(400);
    expect(error.code).toBe("ValidationError");
    return (error.details ?? []).map((d) => d.field);
  };

  it("accepts a complete body", () => {
    expect(validBody(createEnergyDiagnosisBody, body)).toMatchObject(body);
  });

  it.each([
    ["reference_number", undefined],
    ["reference_number", ""],
    ["reference_number", "   "],
    ["reference_number", "x".repeat(101)],
    ["reference_number", 12],
    ["diagnosis_date", undefined],
    ["diagnosis_date", "2025-02-30"],
    ["diagnosis_date", "10/01/2025"],
    ["diagnosis_date", "2025-1-10"],
    ["diagnosis_date", "2025-01-10T00:00:00Z"],
    ["valid_until", undefined],
    ["valid_until", "2035-13-01"],
    ["energy_label", undefined],
    ["energy_label", "H"],
    ["energy_label", "a"],
    ["ges_label", undefined],
    ["ges_label", ""],
    ["construction_year", undefined],
    ["construction_year", 1799],
    ["construction_year", Number(parisDate().slice(0, 4)) + 1],
    ["construction_year", 1975.5],
    ["construction_year", "1975"],
    ["energy_consumption", -0.01],
    ["energy_consumption", "120"],
    ["ges_emission", -1],
    ["heated_area", 0],
    ["heated_area", -5],
    ["notes", "x".repeat(1001)],
    ["notes", 42],
    ["notes", "a\u0000b"],
    ["notes", "lone \ud800 surrogate"],
    ["reference_number", "R\u0000"],
    ["reference_number", "\udc00"],
    ["media_id", "not-a-uuid"],
    ["place_id", "123"],
    ["estate_id", 5],
  ])("refuses %s = %j", (field, value) => {
    expect(fieldsOf(createEnergyDiagnosisBody, { ...body, [field]: value })).toEqual([field]);
  });

  it("accepts the edges of each range", () => {
    const year = Number(parisDate().slice(0, 4));
    for (const over of [
      { construction_year: 1800 },
      { construction_year: year },
      { energy_consumption: 0, ges_emission: 0 },
      { heated_area: 0.01 },
      { notes: "x".repeat(1000) },
      { reference_number: "x".repeat(100) },
      { diagnosis_date: "2024-02-29", valid_until: "2034-02-28" },
    ]) {
      expect(() => validBody(createEnergyDiagnosisBody, { ...body, ...over })).not.toThrow();
    }
  });

  it("refuses unknown fields and non-object bodies", () => {
    expect(fieldsOf(createEnergyDiagnosisBody, { ...body, colour: "red" })).toEqual(["colour"]);
    expect(fieldsOf(createEnergyDiagnosisBody, null)).toEqual(["body"]);
    expect(fieldsOf(createEnergyDiagnosisBody, [body])).toEqual(["body"]);
    expect(fieldsOf(createEnergyDiagnosisBody, "text")).toEqual(["body"]);
  });

  it("update: omitted fields are fine, null removes optional fields, null on a required field is a 400", () => {
    expect(validBody(updateEnergyDiagnosisBody, {})).toEqual({});
    expect(validBody(updateEnergyDiagnosisBody, { notes: null, heated_area: null, media_id: null })).toEqual({
      notes: null,
      heated_area: null,
      media_id: null,
    });
    for (const field of [
      "reference_number",
      "diagnosis_date",
      "valid_until",
      "energy_label",
      "ges_label",
      "construction_year",
    ]) {
      const error = refusal(() => validBody(updateEnergyDiagnosisBody, { [field]: null }));
      expect(error.status).toBe(400);
      expect(error.details).toEqual([{ field, message: "is required and may not be null" }]);
    }
    expect(fieldsOf(updateEnergyDiagnosisBody, { energy_label: "Z", extra: 1 })).toEqual([
      "energy_label",
      "extra",
    ]);
  });

  it("list query: page, limit and filters", () => {
    expect(validBody(listEnergyDiagnosesQuery, {})).toEqual({ page: 1, limit: 100 });
    expect(validBody(listEnergyDiagnosesQuery, { page: "2", limit: "10", energy_label: "B" })).toEqual({
      page: 2,
      limit: 10,
      energy_label: "B",
    });
    expect(fieldsOf(listEnergyDiagnosesQuery, { limit: "0" })).toEqual(["limit"]);
    expect(fieldsOf(listEnergyDiagnosesQuery, { limit: "1001" })).toEqual(["limit"]);
    expect(fieldsOf(listEnergyDiagnosesQuery, { page: "x" })).toEqual(["page"]);
    expect(fieldsOf(listEnergyDiagnosesQuery, { ges_label: "Q" })).toEqual(["ges_label"]);
    expect(fieldsOf(listEnergyDiagnosesQuery, { place_id: "nope" })).toEqual(["place_id"]);
    expect(fieldsOf(listEnergyDiagnosesQuery, { sort: "x" })).toEqual(["sort"]);
  });
});

describe("calendar helpers", () => {
  it("adds years on the calendar", () => {
    expect(addYears("2025-01-10", 10)).toBe("2035-01-10");
    expect(addYears("2024-02-29", 10)).toBe("2034-02-28");
    expect(addYears("2020-02-29", 8)).toBe("2028-02-29");
    expect(addYears("2025-12-31", 10)).toBe("2035-12-31");
  });
});

describe("legal validity of a DPE (décret n° 2020-1610)", () => {
  it.each([
    ["2012-12-31", "2022-12-30", "2022-12-30"],
    ["2013-01-01", "2023-01-01", "2022-12-31"],
    ["2017-12-31", "2027-12-31", "2022-12-31"],
    ["2017-12-31", "2020-06-30", "2020-06-30"],
    ["2018-01-01", "2028-01-01", "2024-12-31"],
    ["2021-06-30", "2031-06-30", "2024-12-31"],
    ["2021-07-01", "2031-07-01", "2031-07-01"],
    ["2024-03-15", "2034-03-15", "2034-03-15"],
  ])("made %s, valid until %s by the certificate: %s by law", (made, certificate, legal) => {
    expect(legalValidUntil(made, certificate)).toBe(legal);
  });
});
