import { describe, it } from "vitest";
import { contactDecider } from "../../src/commands/contacts/decider.ts";
import type { ContactEvent } from "../../src/events/contacts.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const contact_id = "0b6f9a8e-7777-4c3b-9d4e-000000000001";
const { given } = deciderSpec(contactDecider);
const created: ContactEvent = {
  type: "ContactCreated",
  data: {
    contact_id,
    category: "syndic",
    first_name: null,
    last_name: null,
    legal_name: "Foncia Lyon",
    email: null,
    phone: null,
    address_street: null,
    address_postal_code: null,
    address_city: null,
    address_country: null,
    notes: null,
    custom_fields: null,
  },
};

describe("contact decider", () => {
  it("creates with absent fields as null; refuses twice (409)", () => {
    given([])
      .when({ type: "CreateContact", contact_id, input: { category: "syndic", legal_name: "Foncia Lyon" } })
      .then([created]);
    given([created])
      .when({ type: "CreateContact", contact_id, input: { category: "syndic", legal_name: "X" } })
      .thenRefuses(409, `Contact ${contact_id} already exists`);
  });

  it("needs a last name or a legal name, on create and on the merged contact", () => {
    given([])
      .when({ type: "CreateContact", contact_id, input: { category: "notary", first_name: "Anne" } })
      .thenRefuses(400, "Invalid contact data", ["last_name"]);
    given([created])
      .when({ type: "UpdateContact", contact_id, input: { legal_name: null } })
      .thenRefuses(400, "Invalid contact data", ["last_name"]);
    given([created])
      .when({ type: "UpdateContact", contact_id, input: { legal_name: null, last_name: "Martin" } })
      .then([
        { type: "ContactUpdated", data: { contact_id, changes: { legal_name: null, last_name: "Martin" } } },
      ]);
  });

  it("records only the changed fields: omitted keeps, the same value is no change", () => {
    given([created])
      .when({
        type: "UpdateContact",
        contact_id,
        input: { legal_name: "Foncia Lyon", phone: "04 72 00 00 00" },
      })
      .then([{ type: "ContactUpdated", data: { contact_id, changes: { phone: "04 72 00 00 00" } } }]);
  });

  it("deletes once; an unknown or deleted contact is a 404", () => {
    given([created])
      .when({ type: "DeleteContact", contact_id })
      .then([{ type: "ContactDeleted", data: { contact_id } }]);
    const deleted: ContactEvent = { type: "ContactDeleted", data: { contact_id } };
    given([created, deleted])
      .when({ type: "DeleteContact", contact_id })
      .thenRefuses(404, `Contact ${contact_id} not found`);
    given([]).when({ type: "UpdateContact", contact_id, input: {} }).thenRefuses(404);
  });
});
