import { describe, expect, it } from "vitest";
import { classOf, labelScaleOn, legalValidUntil } from "../../src/law/dpe.ts";

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
