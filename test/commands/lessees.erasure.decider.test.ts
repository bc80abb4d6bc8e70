import { describe, it } from "vitest";
import { type LesseeCommand, lesseeDecider } from "../../src/commands/lessees/decider.ts";
import type { LesseeData, LesseeEvent } from "../../src/events/lessees.ts";
import { verdict } from "../../src/law/verdict.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const spec = deciderSpec(lesseeDecider);
const id = "00000000-0000-4000-8000-000000000001";
const lessee = {
  category: "individual",
  first_name: "Ana",
  last_name: "Lopes",
  email: "ana@example.fr",
} as unknown as LesseeData;
const registered: LesseeEvent = { type: "LesseeRegistered", data: { lessee_id: id, ...lessee } };
const pass = verdict("ACTIVE_LEASE", "PASS", "No lease in progress", "RGPD art. 17");
const fail = verdict(
  "ACTIVE_LEASE",
  "FAIL",
  "The lessee is party to 1 lease(s) not over",
  "RGPD art. 17(1)(a)",
);
const erase = (retention = [pass]): LesseeCommand => ({
  type: "EraseLesseePersonalData",
  lessee_id: id,
  reason: "asked",
  erased_by: "key-1",
  now: "2026-11-26T10:00:00.000Z",
  retention,
});
const erased: LesseeEvent = {
  type: "PersonalDataErased",
  data: {
    lessee_id: id,
    erased_at: "2026-11-26T10:00:00.000Z",
    erased_by: "key-1",
    reason: "asked",
    retention: [{ rule: "ACTIVE_LEASE", status: "PASS", legal_reference: "RGPD art. 17" }],
  },
};

describe("erasing a lessee's personal data", () => {
  it("records who, when, why and the retentions checked", () => {
    spec.given([registered]).when(erase()).then([erased]);
  });
  it("a retention that applies is a 409 with its reason", () => {
    spec
      .given([registered])
      .when(erase([fail]))
      .thenRefuses(409, /party to 1 lease/);
  });
  it("erasing again changes nothing", () => {
    spec.given([registered, erased]).when(erase()).thenNothing();
  });
  it("an unknown lessee is a 404; an erased one cannot be updated (409)", () => {
    spec.given([]).when(erase()).thenRefuses(404);
    spec
      .given([registered, erased])
      .when({
        type: "UpdateLessee",
        lessee_id: id,
        changes: { first_name: "Back" },
        now: "2026-11-27T00:00:00Z",
      })
      .thenRefuses(409, /erased/);
  });
  it("a deleted lessee may still be erased", () => {
    spec
      .given([registered, { type: "LesseeDeleted", data: { lessee_id: id } }])
      .when(erase())
      .then([erased]);
  });
});
