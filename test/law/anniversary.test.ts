import { describe, expect, it } from "vitest";
import { latestAnniversary } from "../../src/law/rent.ts";

describe("the lease's anniversary (loi n° 89-462 art. 17-1 I)", () => {
  it("is the latest one on or before today, none before the first", () => {
    expect(latestAnniversary("2024-12-03", "2026-12-03")).toEqual({ on: "2026-12-03", year: 2 });
    expect(latestAnniversary("2024-12-03", "2026-12-02")).toEqual({ on: "2025-12-03", year: 1 });
    expect(latestAnniversary("2025-12-04", "2026-12-03")).toBeNull();
  });
  it("a lease of 29 February has its anniversary on 28 February", () => {
    expect(latestAnniversary("2024-02-29", "2025-03-01")).toEqual({ on: "2025-02-28", year: 1 });
  });
});
