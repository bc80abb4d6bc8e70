import { describe, expect, it } from "vitest";
import { addressesIn } from "../../src/platform/personalData/erasure.ts";

// The addresses an erasure looks for in messages that name no subject (docs/personal-data.md).
describe("a subject's email addresses in its events", () => {
  it("takes email and previous_email from data and its changes, lower-cased, each once", () => {
    const events = [
      { data: { email: " Marie@Example.fr ", last_name: "Martin" } },
      { data: { changes: { email: "marie.new@example.fr" } } },
      { data: { email: "marie.new@example.fr", previous_email: "marie@example.fr" } },
    ];
    expect(addressesIn(events)).toEqual(["marie@example.fr", "marie.new@example.fr"]);
  });

  it("skips what is no address: nulls of an erased subject, blanks, other types, other fields", () => {
    const events = [
      { data: { email: null, previous_email: "  " } },
      { data: { email: 42, contact_email: "someone@example.fr" } },
      { data: null },
      { data: "text" },
      { data: { changes: null } },
    ];
    expect(addressesIn(events)).toEqual([]);
  });
});
