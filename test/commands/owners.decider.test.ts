import { describe, expect, it } from "vitest";
import { ownerDecider } from "../../src/commands/owners/decider.ts";
import {
  createOwnerSchema,
  isValidBic,
  isValidEmail,
  isValidIban,
  updateOwnerSchema,
} from "../../src/commands/owners/schemas.ts";
import type { OwnerEvent } from "../../src/events/owners.ts";
import type { ApiError } from "../../src/platform/errors.ts";
import { deciderSpec, refusal } from "../support/deciderSpec.ts";

const id = "0b6f9a8e-3333-4c3b-9d4e-000000000001";
const { given } = deciderSpec(ownerDecider);
const registered: OwnerEvent = {
  type: "OwnerRegistered",
  data: {
    owner_id: id,
    category: "individual",
    legal_form: null,
    first_name: "Claire",
    last_name: "Martin",
    legal_name: null,
    email: "claire.martin@example.fr",
    phone: null,
    address_street: null,
    address_postal_code: null,
    address_city: null,
    address_country: null,
    iban: null,
    bic: null,
    custom_fields: null,
  },
};

const fields = (e: ApiError) => e.details?.map((d) => d.field).sort();

describe("owner decider", () => {
  it("registers an individual with names and a company with a legal name", () => {
    const [event] = given([]).when({
      type: "RegisterOwner",
      owner_id: id,
      input: {
        category: "individual",
        first_name: "Claire",
        last_name: "Martin",
        email: "claire.martin@example.fr",
      },
    })();
    expect(event).toEqual(registered);
    const [company] = given([]).when({
      type: "RegisterOwner",
      owner_id: id,
      input: { category: "company", legal_name: "SCI Les Tilleuls", email: "gestion@sci-tilleuls.fr" },
    })();
    expect(company.type).toBe("OwnerRegistered");
  });

  it("refuses missing names for the category (400 with details)", () => {
    const individual = refusal(
      given([]).when({
        type: "RegisterOwner",
        owner_id: id,
        input: { category: "individual", email: "a@b.fr" },
      }),
    );
    expect(individual.status).toBe(400);
    expect(fields(individual)).toEqual(["first_name", "last_name"]);
    const company = refusal(
      given([]).when({
        type: "RegisterOwner",
        owner_id: id,
        input: { category: "company", email: "a@b.fr" },
      }),
    );
    expect(fields(company)).toEqual(["legal_name"]);
  });

  it("re-checks the category rules on the merged owner", () => {
    const error = refusal(
      given([registered]).when({ type: "UpdateOwner", owner_id: id, input: { category: "company" } }),
    );
    expect(fields(error)).toEqual(["legal_name"]);
    const ok = given([registered]).when({
      type: "UpdateOwner",
      owner_id: id,
      input: { category: "company", legal_name: "SCI Martin", phone: null, last_name: "Martin" },
    })();
    expect(ok).toEqual([
      {
        type: "OwnerUpdated",
        data: { owner_id: id, changes: { category: "company", legal_name: "SCI Martin" } },
      },
    ]);
    expect(
      fields(
        refusal(given([registered]).when({ type: "UpdateOwner", owner_id: id, input: { first_name: null } })),
      ),
    ).toEqual(["first_name"]);
  });

  it("refuses to delete an owner of estates (409), 404 when unknown", () => {
    expect(
      refusal(given([registered]).when({ type: "DeleteOwner", owner_id: id, estate_count: 1 })).status,
    ).toBe(409);
    expect(refusal(given([]).when({ type: "DeleteOwner", owner_id: id, estate_count: 0 })).status).toBe(404);
    expect(given([registered]).when({ type: "DeleteOwner", owner_id: id, estate_count: 0 })()).toEqual([
      { type: "OwnerDeleted", data: { owner_id: id } },
    ]);
  });
});

describe("owner field rules", () => {
  it("validates emails", () => {
    expect(isValidEmail("a@b.fr")).toBe(true);
    for (const bad of ["a@b", "a@@b.fr", "a@b@c.fr", "@b.fr", "a@.fr", "a@b.", "a b@c.fr"])
      expect(isValidEmail(bad)).toBe(false);
  });

  it("validates IBANs with mod-97 and normalises them", () => {
    expect(isValidIban("FR1420041010050500013M02606")).toBe(true);
    expect(isValidIban("DE89370400440532013000")).toBe(true);
    expect(isValidIban("FR1420041010050500013M02607")).toBe(false);
    const parsed = createOwnerSchema.parse({
      category: "company",
      legal_name: "SCI",
      email: "  x@y.fr ",
      iban: "fr14 2004 1010 0505 0001 3m02 606",
      bic: "bnpa fr pp xxx",
    });
    expect(parsed.iban).toBe("FR1420041010050500013M02606");
    expect(parsed.bic).toBe("BNPAFRPPXXX");
    expect(parsed.email).toBe("x@y.fr");
  });

  it("validates BICs (8 or 11, pattern)", () => {
    expect(isValidBic("BNPAFRPP")).toBe(true);
    expect(isValidBic("BNPAFRPPXXX")).toBe(true);
    expect(isValidBic("BNPAFRP")).toBe(false);
    expect(isValidBic("1NPAFRPP")).toBe(false);
    expect(updateOwnerSchema.safeParse({ bic: "BNPAFRPPXX" }).success).toBe(false);
    expect(updateOwnerSchema.safeParse({ iban: "FR14" }).success).toBe(false);
    expect(updateOwnerSchema.safeParse({ email: null }).success).toBe(false);
  });
});
