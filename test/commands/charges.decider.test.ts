import { describe, expect, it } from "vitest";
import { ledgerDecider, regularisationDecider } from "../../src/commands/charges/decider.ts";
import type { ChargeFields, ChargesEvent, RegularisationEvent } from "../../src/events/charges.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** The place's ledger and the lease's regularisations, given / when / then (no database). */

const place_id = "p";
const fields: ChargeFields = {
  category: "ELEVATORS",
  amount: 100,
  period_from: "2025-01-01",
  period_to: "2025-03-31",
  label: "Ascenseur",
  invoice_media_id: null,
  distribution_key_id: null,
  corrects_charge_id: null,
};
const recorded: ChargesEvent = { type: "ChargeRecorded", data: { place_id, charge_id: "c1", ...fields } };
const frozen: ChargesEvent = {
  type: "ChargesFrozen",
  data: { place_id, freeze_id: "f", from: "2025-01-01", to: "2025-03-31" },
};

describe("ledger decider", () => {
  const spec = deciderSpec(ledgerDecider);
  it("records a charge outside any freeze", () => {
    spec.given([]).when({ type: "RecordCharge", place_id, charge_id: "c1", fields }).then([recorded]);
  });
  it("refuses a charge, a change or a removal inside a frozen period (409)", () => {
    spec
      .given([frozen])
      .when({ type: "RecordCharge", place_id, charge_id: "c2", fields })
      .thenRefuses(409, /frozen/);
    spec
      .given([recorded, frozen])
      .when({ type: "ChangeCharge", place_id, charge_id: "c1", changes: { amount: 5 } })
      .thenRefuses(409);
    spec.given([recorded, frozen]).when({ type: "RemoveCharge", place_id, charge_id: "c1" }).thenRefuses(409);
  });
  it("accepts an adjusting entry dated after the freeze; refuses removing a corrected charge", () => {
    const adjusting = {
      ...fields,
      amount: -40,
      period_from: "2025-04-01",
      period_to: "2025-04-01",
      corrects_charge_id: "c1",
    };
    spec
      .given([recorded, frozen])
      .when({ type: "RecordCharge", place_id, charge_id: "c2", fields: adjusting })
      .then([{ type: "ChargeRecorded", data: { place_id, charge_id: "c2", ...adjusting } }]);
    const later = {
      ...recorded,
      data: { ...recorded.data, charge_id: "c3", period_from: "2025-05-01", period_to: "2025-05-31" },
    };
    const fix: ChargesEvent = {
      type: "ChargeRecorded",
      data: { ...later.data, charge_id: "c4", amount: -1, corrects_charge_id: "c3" },
    };
    spec
      .given([later, fix])
      .when({ type: "RemoveCharge", place_id, charge_id: "c3" })
      .thenRefuses(409, /corrected/);
  });
  it("refuses a negative amount without corrects_charge_id and an unknown key (400)", () => {
    spec
      .given([])
      .when({
        type: "RecordCharge",
        place_id,
        charge_id: "c1",
        fields: { ...fields, amount: -1, distribution_key_id: "k" },
      })
      .thenRefuses(400, /Invalid charge data/, ["amount", "distribution_key_id"]);
  });
});

describe("regularisation decider", () => {
  const spec = deciderSpec(regularisationDecider);
  const facts = {
    lease_id: "l",
    estate_id: "e",
    lease_type: "UNFURNISHED",
    settlement: "PROVISION" as const,
    period: { from: "2025-01-01", to: "2025-12-31" },
    regularised_on: "2026-02-01",
    expenses: [],
    keys: [],
    estate_ids: ["e"],
    occupancies: [{ lease_id: "l", estate_id: "e", from: "2025-01-01", to: null }],
    provisions: [{ period_start: "2025-01-01", period_end: "2025-12-31", charges: 60_000 }],
  };
  const command = {
    type: "RegulariseCharges" as const,
    regularisation_id: "r",
    place_id: "p",
    lease_status: "ACTIVE",
    facts,
  };
  it("records the figures; a second regularisation of an overlapping period is a 409", () => {
    const [event] = spec.given([]).when(command).thenEvents() as RegularisationEvent[];
    expect(event.data).toMatchObject({ balance: -600, provisions_called: 600, lease_amount: 0 });
    spec
      .given([event])
      .when({ ...command, regularisation_id: "r2" })
      .thenRefuses(409, /already regularised/);
  });
  it("a flat rate is a 422 naming the article; a period over a year a 400", () => {
    spec
      .given([])
      .when({ ...command, facts: { ...facts, settlement: "FLAT", lease_type: "FURNISHED" } })
      .thenRefuses(422, /art\. 25-10/);
    spec
      .given([])
      .when({ ...command, facts: { ...facts, period: { from: "2025-01-01", to: "2026-01-01" } } })
      .thenRefuses(400, /Invalid/, ["to"]);
  });
});
