import { describe, expect, it } from "vitest";
import { classOf, decencyVerdict, labelScaleOn, legalValidUntil } from "../../src/law/dpe.ts";

/**
 * The DPE label scales by method and reference surface (docs/dpe.md): arrêté du 31 mars 2021, annex 5
 * as rewritten by the arrêté du 25 mars 2024 for dwellings under 40 m².
 */

const SMALL_FROM = "2024-07-01";
const standard = labelScaleOn(SMALL_FROM);
const surfaces = Array.from({ length: 32 }, (_, i) => i + 8); // 8 .. 39 m²

describe("small-dwelling scale (arrêté du 25 mars 2024)", () => {
  it("every row, 8 to 39 m², has six rising bounds for energy and for GES, named by its surface", () => {
    for (const surface of surfaces) {
      const scale = labelScaleOn(SMALL_FROM, surface);
      expect(scale.reference_surface, `${surface} m²`).toBe(surface);
      expect(scale.method).toBe("2021");
      expect(scale.law).toContain(`for a reference surface of ${surface} m²`);
      for (const bounds of [scale.energy, scale.ges]) {
        expect(bounds, `${surface} m²`).toHaveLength(6);
        for (let i = 1; i < 6; i++)
          expect(bounds[i], `${surface} m², bound ${i}`).toBeGreaterThan(bounds[i - 1]);
      }
    }
  });

  it("a larger dwelling never gets a looser bound, and 39 m² is still at least the standard scale", () => {
    for (const surface of surfaces.slice(1)) {
      const smaller = labelScaleOn(SMALL_FROM, surface - 1);
      const larger = labelScaleOn(SMALL_FROM, surface);
      for (const key of ["energy", "ges"] as const)
        larger[key].forEach((bound, i) => {
          expect(bound, `${key} ${surface} m² bound ${i}`).toBeLessThanOrEqual(smaller[key][i]);
        });
    }
    const last = labelScaleOn(SMALL_FROM, 39);
    for (const key of ["energy", "ges"] as const)
      last[key].forEach((bound, i) => {
        expect(bound).toBeGreaterThanOrEqual(standard[key][i]);
      });
  });

  it("holds the arrêté's published E/F bounds: 385 kWh at 20 m², 349 at 30 m²", () => {
    expect(classOf(385, labelScaleOn(SMALL_FROM, 20).energy)).toBe("E");
    expect(classOf(385.01, labelScaleOn(SMALL_FROM, 20).energy)).toBe("F");
    expect(classOf(349, labelScaleOn(SMALL_FROM, 30).energy)).toBe("E");
    expect(classOf(349.01, labelScaleOn(SMALL_FROM, 30).energy)).toBe("F");
  });

  it("rounds the surface to the whole m²; below 8 m² the 8 m² row, from 40 m² the standard scale", () => {
    expect(labelScaleOn(SMALL_FROM, 39.49).reference_surface).toBe(39);
    expect(labelScaleOn(SMALL_FROM, 39.5)).toEqual(standard);
    expect(labelScaleOn(SMALL_FROM, 5).reference_surface).toBe(8);
    expect(labelScaleOn(SMALL_FROM, 5)).toEqual(labelScaleOn(SMALL_FROM, 8));
  });

  it("applies to diagnoses made from 2024-07-01, not the day before", () => {
    expect(labelScaleOn("2024-06-30", 20)).toEqual(standard);
    expect(labelScaleOn("2024-06-30", 20).reference_surface).toBeUndefined();
  });
});

describe("methods by diagnosis date", () => {
  it("names its method: 2021 from 2021-07-01, 2006 before", () => {
    expect(labelScaleOn("2021-07-01").method).toBe("2021");
    expect(labelScaleOn("2021-06-30").method).toBe("2006");
    expect(labelScaleOn("2021-07-01").law).toContain("arrêté du 31 mars 2021");
  });
});

describe("legal validity (décret n° 2020-1610)", () => {
  it("keeps the certificate's date when it ends before the legal end, and on the legal end itself", () => {
    expect(legalValidUntil("2019-05-01", "2024-06-30")).toBe("2024-06-30");
    expect(legalValidUntil("2019-05-01", "2024-12-31")).toBe("2024-12-31");
    expect(legalValidUntil("2019-05-01", "2029-04-30")).toBe("2024-12-31");
    expect(legalValidUntil("2015-05-01", "2025-04-30")).toBe("2022-12-31");
    expect(legalValidUntil("2022-05-01", "2032-04-30")).toBe("2032-04-30");
  });
});

describe("standard scales", () => {
  it("2006 (arrêté du 15 septembre 2006): F up to 450 kWh, G above; GES F up to 80", () => {
    const scale = labelScaleOn("2021-06-30");
    expect(scale.law).toBe("scale of the arrêté du 15 septembre 2006 (DPE made before 2021-07-01)");
    expect(classOf(450, scale.energy)).toBe("F");
    expect(classOf(450.01, scale.energy)).toBe("G");
    expect(classOf(50, scale.energy)).toBe("A");
    expect(classOf(80, scale.ges)).toBe("F");
    expect(classOf(80.01, scale.ges)).toBe("G");
  });

  it("2021 (arrêté du 31 mars 2021): F up to 420 kWh and 100 kg CO2, G above", () => {
    expect(classOf(420, standard.energy)).toBe("F");
    expect(classOf(420.01, standard.energy)).toBe("G");
    expect(classOf(70, standard.energy)).toBe("A");
    expect(classOf(70.01, standard.energy)).toBe("B");
    expect(classOf(100, standard.ges)).toBe("F");
    expect(classOf(100.01, standard.ges)).toBe("G");
    expect(standard.law).toBe("scale of the arrêté du 31 mars 2021 (DPE made from 2021-07-01)");
  });
});

describe("decency calendar by conclusion or renewal (loi n° 2021-1104 art. 160)", () => {
  const G = { energy_label: "G" };
  const judge = (on: string, over: Partial<Parameters<typeof decencyVerdict>[0]["lease"]> = {}) =>
    decencyVerdict({
      lease: {
        lease_type: "UNFURNISHED",
        start_date: "2024-12-31",
        end_date: null,
        duration_months: 36,
        status: "ACTIVE",
        ...over,
      },
      on,
      dpe: G,
    });

  it("a G dwelling let on 2024-12-31 for 3 years passes until its renewal on 2027-12-31", () => {
    expect(judge("2027-12-30")).toMatchObject({
      status: "PASS",
      message:
        "Housing classed G is not decent for contracts concluded or renewed from 2025-01-01; the lease becomes non-compliant at its renewal on 2027-12-31",
      details: { indecent_from: "2025-01-01", non_compliant_from: "2027-12-31" },
    });
    expect(judge("2027-12-31")).toMatchObject({
      status: "FAIL",
      message: expect.stringContaining("this lease was renewed on 2027-12-31"),
    });
  });

  it("a lease the law never renews is never reached by the calendar", () => {
    expect(judge("2025-06-01", { lease_type: "STUDENT", duration_months: 9 })).toMatchObject({
      status: "PASS",
      message: expect.stringContaining("this lease is not renewed, so the calendar does not reach it"),
      details: { non_compliant_from: null },
    });
  });

  it("a lease concluded from the step's date fails from its start", () => {
    expect(judge("2025-01-01", { start_date: "2025-01-01" })).toMatchObject({
      status: "FAIL",
      message: expect.stringContaining("this lease was concluded on 2025-01-01"),
    });
    expect(judge("2025-01-01", { start_date: "2025-01-02" }).message).toContain(
      "the lease becomes non-compliant at its start on 2025-01-02",
    );
  });
});
