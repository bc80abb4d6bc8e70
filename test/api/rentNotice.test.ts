import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/**
 * The avis d'échéance of a rent call (docs/rent-cycle.md, "Avis d'échéance"): the period, its
 * figures, the due date and how to pay, in French, with no raw code where the tenant reads.
 */

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe("avis d'échéance", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  /** An active lease of an estate of an owner (with or without an IBAN), its calls issued as of 2025-03-15. */
  const leaseOfOwner = async (owner: object) => {
    const o = await t.request("POST", "/api/owners", { body: owner });
    expect(o.statusCode, o.body).toBe(201);
    const place = (await t.request("POST", "/api/places", { body: { name: "Résidence du Parc" } })).json().id;
    const estate = await t.request("POST", `/api/places/${place}/estates`, {
      body: {
        name: "Appartement 12",
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        fiscal_identifier: `FI-${o.json().id.slice(0, 6)}`,
        owner_id: o.json().id,
      },
    });
    expect(estate.statusCode, estate.body).toBe(201);
    const { id } = await newLease({ estate_id: estate.json().id, rent_amount: 800, charges_amount: 50.5 });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-03-15", tenantId: t.tenant.id },
    );
    const calls = await eventually(
      async () =>
        (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as {
          id: string;
          period_start: string;
        }[],
      (found) => found.length === 3,
    );
    return { id, calls: calls.sort((a, b) => a.period_start.localeCompare(b.period_start)) };
  };

  it("states the period, rent, charges, total, due date and the lessor's IBAN, in French", async () => {
    const { id, calls } = await leaseOfOwner({
      category: "individual",
      first_name: "Claire",
      last_name: "Martin",
      email: "claire.martin@example.fr",
      address_street: "3 place Bellecour",
      address_postal_code: "69002",
      address_city: "Lyon",
      iban: "FR1420041010050500013M02606",
      bic: "BNPAFRPP",
    });
    const res = await t.request("GET", `/api/leases/${id}/rent-calls/${calls[1].id}/notice`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("application/pdf");
    expect(res.headers["content-disposition"]).toContain("avis-echeance-2025-02-01.pdf");
    const text = await pdfText(res.rawPayload);
    for (const mention of [
      "Avis d'échéance",
      "Bailleur : Claire Martin, 3 place Bellecour, 69002 Lyon",
      "période du 1er février 2025 au 28 février 2025",
      "Loyer (hors charges) 800,00 €",
      "Charges 50,50 €",
      "Total à payer 850,50 €",
      "IBAN FR14 2004 1010 0505 0001 3M02 606, BIC BNPAFRPP",
      "art. 21",
      "Locataire(s) : ",
      "Logement : ",
      "Cet avis n'est pas une quittance",
      "délivrée gratuitement",
    ])
      expect(text).toContain(mention);
    // The due date, a long French date (docs/documents.md, "Avis d'échéance").
    expect(text).toMatch(/à régler au plus tard le (1er|\d{1,2}) \p{L}+ 2025/u);
    expect(text).not.toMatch(UUID);
    // The call's RF creditor reference (ISO 11649), for the bank to match the transfer to the call.
    expect(text).toMatch(/Référence à indiquer avec votre paiement : RF\d{2}[0-9A-Z]{1,21}/);
    expect(text).not.toContain("Déjà payé");
  });

  it("without an IBAN says to pay as the lease agreed; unknown lease or call and another tenant's are 404", async () => {
    const { id, calls } = await leaseOfOwner({
      category: "company",
      legal_name: "SCI Les Tilleuls",
      email: "g@sci.fr",
    });
    const res = await t.request("GET", `/api/leases/${id}/rent-calls/${calls[0].id}/notice`);
    expect(res.statusCode).toBe(200);
    const text = await pdfText(res.rawPayload);
    expect(text).toContain("Selon les modalités convenues au bail avec SCI Les Tilleuls");
    expect(text).not.toContain("IBAN");
    expect(text).toContain("période du 1er janvier 2025 au 31 janvier 2025");
    expect((await t.request("GET", `/api/leases/${id}/rent-calls/${UNKNOWN}/notice`)).statusCode).toBe(404);
    expect(
      (await t.request("GET", `/api/leases/${UNKNOWN}/rent-calls/${calls[0].id}/notice`)).statusCode,
    ).toBe(404);
    const other = await t.request("GET", `/api/leases/${id}/rent-calls/${calls[0].id}/notice`, {
      as: t.other,
    });
    expect(other.statusCode).toBe(404);
  });
});
