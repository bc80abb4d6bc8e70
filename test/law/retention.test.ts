import { describe, expect, it } from "vitest";
import {
  addYears,
  contactErasureVerdicts,
  type ErasureFacts,
  leaseRecordsVerdict,
  lesseeErasureVerdicts,
  ownerErasureVerdicts,
  retentionThatApplies,
} from "../../src/law/retention.ts";

/**
 * Erasure against the retentions (RGPD art. 17(3)(b)(e)): a lease in progress, an unpaid balance,
 * loi n° 89-462 art. 7-1 (3 years after the lease), code de commerce L123-22 (accounting, 10 years).
 */

const facts: ErasureFacts = { active_lease_count: 0, unpaid_balance: 0, last_lease_end: "2022-09-01" };
const rule = (today: string, over: Partial<ErasureFacts> = {}) =>
  retentionThatApplies(lesseeErasureVerdicts({ ...facts, ...over }, today))?.rule ?? null;

describe("lessee erasure retentions", () => {
  it("3 years after the lease ended (art. 7-1): held through the last day, free the day after (code civil 2229)", () => {
    expect(rule("2025-09-01")).toBe("LEASE_LIMITATION");
    expect(rule("2025-09-02")).toBeNull();
    const v = lesseeErasureVerdicts(facts, "2025-09-01").find((x) => x.rule === "LEASE_LIMITATION");
    expect(v?.details).toMatchObject({ retained_until: "2025-09-01", erasable_from: "2025-09-02" });
    expect(v?.legal_reference).toMatch(/art\. 7-1.*2224.*2229/);
  });

  it("the clock starts at the latest of the lease's end, the deposit's due day and the last regularisation", () => {
    const later = { last_deposit_due_on: "2022-11-01", last_regularisation_on: "2023-03-15" };
    expect(rule("2026-03-15", later)).toBe("LEASE_LIMITATION");
    expect(rule("2026-03-16", later)).toBeNull();
    expect(rule("2025-11-01", { last_deposit_due_on: "2022-11-01" })).toBe("LEASE_LIMITATION");
    expect(rule("2025-11-02", { last_deposit_due_on: "2022-11-01" })).toBeNull();
    // An earlier date never shortens the period.
    expect(rule("2025-09-01", { last_regularisation_on: "2021-01-01" })).toBe("LEASE_LIMITATION");
    const v = lesseeErasureVerdicts({ ...facts, ...later }, "2026-01-01")[2];
    expect(v.details).toMatchObject({ limitation_start: "2023-03-15", retained_until: "2026-03-15" });
    expect(v.message).toMatch(/2023-03-15.*kept until 2026-03-15, erasable from 2026-03-16/);
  });

  it("a lease in progress holds it back whatever the dates", () => {
    expect(rule("2040-01-01", { active_lease_count: 1 })).toBe("ACTIVE_LEASE");
  });

  it("an unpaid cent holds it back; a credit does not", () => {
    expect(rule("2040-01-01", { unpaid_balance: 0.01 })).toBe("UNPAID_BALANCE");
    expect(rule("2040-01-01", { unpaid_balance: 0 })).toBeNull();
  });

  it("never party to a lease: the limitation does not apply", () => {
    const verdicts = lesseeErasureVerdicts({ ...facts, last_lease_end: null }, "2026-01-01");
    expect(verdicts.find((v) => v.rule === "LEASE_LIMITATION")?.status).toBe("NOT_APPLICABLE");
    expect(retentionThatApplies(verdicts)).toBeNull();
  });

  it("accounting documents (L123-22) stay without the erased fields: never a refusal", () => {
    const v = lesseeErasureVerdicts(facts, "2026-01-01").find((x) => x.rule === "ACCOUNTING_RECORDS");
    expect(v).toMatchObject({ status: "NOT_APPLICABLE", legal_reference: "Code de commerce, art. L123-22" });
  });

  it("every refusal cites its article", () => {
    for (const v of lesseeErasureVerdicts(
      { active_lease_count: 2, unpaid_balance: 5, last_lease_end: "2026-01-01" },
      "2026-02-01",
    ))
      expect(v.legal_reference).not.toBe("");
  });

  it("adds years, 29 February to 28 February", () => {
    expect(addYears("2024-02-29", 3)).toBe("2027-02-28");
    expect(addYears("2022-09-01", 3)).toBe("2025-09-01");
  });
});

describe("owner and contact erasure retentions", () => {
  const owner = (estate_count: number, active_lease_count: number) =>
    ownerErasureVerdicts({ estate_count, active_lease_count });

  it("an owner owning an estate, or lessor of a lease in progress, is held back; else free", () => {
    expect(retentionThatApplies(owner(1, 0))?.rule).toBe("ESTATES_OWNED");
    expect(retentionThatApplies(owner(0, 1))?.rule).toBe("ACTIVE_LEASE");
    expect(
      owner(2, 1)
        .filter((v) => v.status === "FAIL")
        .map((v) => v.rule),
    ).toEqual(["ESTATES_OWNED", "ACTIVE_LEASE"]);
    expect(retentionThatApplies(owner(0, 0))).toBeNull();
  });

  it("a contact is never held back; accounting (L123-22) is cited, not applied", () => {
    expect(retentionThatApplies(contactErasureVerdicts())).toBeNull();
    for (const verdicts of [owner(0, 0), contactErasureVerdicts()])
      expect(verdicts.find((v) => v.rule === "ACCOUNTING_RECORDS")).toMatchObject({
        status: "NOT_APPLICABLE",
        legal_reference: "Code de commerce, art. L123-22",
      });
  });

  it("every verdict cites its article", () => {
    for (const v of [...owner(3, 2), ...owner(0, 0), ...contactErasureVerdicts()])
      expect(v.legal_reference).toMatch(/RGPD|Code de commerce/);
  });
});

describe("a lease's records (signed contract, evidence, PDFs) going with a party's erasure", () => {
  const over = { over: true, ended_on: "2022-09-01", unpaid_balance: 0 };
  it.each([
    ["in progress", { ...over, over: false }, "2040-01-01", "FAIL", /in progress/],
    ["a cent unpaid", { ...over, unpaid_balance: 0.01 }, "2040-01-01", "FAIL", /0\.01 EUR unpaid/],
    [
      "the last day of the period",
      over,
      "2025-09-01",
      "FAIL",
      /art\. 7-1.*2025-09-01, erasable from 2025-09-02/,
    ],
    ["the day after it", over, "2025-09-02", "PASS", /prescribed/],
    [
      "a deposit due later",
      { ...over, deposit_due_on: "2022-11-01" },
      "2025-11-01",
      "FAIL",
      /after 2022-11-01/,
    ],
    ["the day after that", { ...over, deposit_due_on: "2022-11-01" }, "2025-11-02", "PASS", /prescribed/],
    [
      "a regularisation later still",
      { ...over, deposit_due_on: "2022-11-01", last_regularisation_on: "2023-05-02" },
      "2026-05-02",
      "FAIL",
      /after 2023-05-02/,
    ],
    ["a lease that bound no one", { ...over, ended_on: null }, "2020-01-01", "PASS", /prescribed/],
  ] as const)("%s: %s", (_case, facts, today, status, message) => {
    const v = leaseRecordsVerdict(facts, today);
    expect(v).toMatchObject({ rule: "LEASE_RECORDS", status });
    expect(v.message).toMatch(message);
    expect(v.legal_reference).not.toBe("");
  });
});
