import { describe, expect, it } from "vitest";
import { buildLeaseContract } from "../../src/commands/leases/contract/buildLeaseContract.ts";
import { contractMarkup } from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { leasePdfDecider } from "../../src/commands/leases/pdfs.ts";
import type { LeaseContractPdfData, LeasePdfEvent } from "../../src/events/leasePdfs.ts";
import { sha256Of, stableJson } from "../../src/platform/pdf/renderCache.ts";
import type { LeaseContractFacts } from "../../src/queries/leaseContractFacts.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const pdfId = "6a1f0c2e-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const leaseId = "3f2a1c0e-8d4b-4c1e-9a7f-2b6d5e8c1a90";
const pdf: LeaseContractPdfData = {
  pdf_id: pdfId,
  lease_id: leaseId,
  template: "FURNISHED",
  template_version: "v1",
  lease_revision: 3,
  contract_sha256: "c".repeat(64),
  filename: "bail-meuble-2025-09-01-3f2a1c0e.pdf",
  size: 1234,
  sha256: "a".repeat(64),
  blob_key: `tenants/t/lease-pdfs/${pdfId}`,
  from_cache: false,
};
const generated: LeasePdfEvent = { type: "LeaseContractPdfGenerated", data: pdf };
const deleted: LeasePdfEvent = {
  type: "LeaseContractPdfDeleted",
  data: { pdf_id: pdfId, lease_id: leaseId },
};

describe("lease PDF decider", () => {
  const spec = deciderSpec(leasePdfDecider);
  it("records a new PDF once", () => {
    spec.given([]).when({ type: "RecordLeaseContractPdf", pdf }).then([generated]);
    spec
      .given([generated])
      .when({ type: "RecordLeaseContractPdf", pdf })
      .thenRefuses(409, /already exists/);
  });
  it("deletes a present PDF, and a missing or deleted one is a 404", () => {
    spec.given([generated]).when({ type: "DeleteLeaseContractPdf", pdf_id: pdfId }).then([deleted]);
    spec
      .given([generated, deleted])
      .when({ type: "DeleteLeaseContractPdf", pdf_id: pdfId })
      .thenRefuses(404, `Lease PDF ${pdfId} not found`);
    spec.given([]).when({ type: "DeleteLeaseContractPdf", pdf_id: pdfId }).thenRefuses(404);
  });
});

const facts = (): LeaseContractFacts => ({
  lease: {
    id: leaseId,
    lease_type: "FURNISHED",
    usage_type: null,
    start_date: "2025-09-01",
    end_date: null,
    duration_months: null,
    rent_amount: 750,
    charges_amount: 60,
    charge_settlement_mode: "FLAT_RATE",
    deposit_amount: 1500,
    payment_day: 5,
    payment_method: "PRELEVEMENT_AUTOMATIQUE",
    revision_index_type: "IRL",
    revision_reference_quarter: "2025-Q2",
    revision_reference_value: 146.68,
    special_conditions: "Animaux acceptés\n\nJardin entretenu par le locataire",
    custom_fields: null,
    signed_at: null,
  },
  lease_revision: 4,
  parties: [
    {
      role: "Primary",
      lessee: { category: "individual", first_name: "Julien", last_name: "Lefèvre", email: "j@example.fr" },
    },
    {
      role: "Guarantor",
      lessee: { category: "guarantor", legal_name: "Garantie SA", email: "g@example.fr" },
    },
  ],
  estate: {
    area: 32.5,
    number_of_room: 2,
    construction_date: "1962-01-01T00:00:00.000Z",
    address: "5 rue Mercière, 69002 Lyon",
    floor: 3,
  },
  estate_type: { code: "apartment", name: "Apartment" },
  place: { name: "Résidence", address_city: "Lyon" },
  owner: { category: "individual", first_name: "Hélène", last_name: "Marchand", email: "h@example.fr" },
  dpe: null,
  diagnostics: [{ type: "electrical", diagnosis_date: "2024-02-01", valid_until: "2030-02-01" }],
  regulation: {
    high_demand_zone: true,
    reference_rents: [
      {
        rooms: 2,
        construction_period: "1946_1970",
        furnished: true,
        reference: 14.2,
        increased_reference: 17.04,
      },
    ],
    order_reference: null,
    effective_from: null,
    updated_at: null,
  },
  previous_lease: null,
  equipment: [],
  printed_on: "2025-08-20",
});

describe("buildLeaseContract", () => {
  it("maps the read models to the contract the templates print", () => {
    const contract = buildLeaseContract(facts());
    expect(contract).toMatchObject({
      lease_type: "FURNISHED",
      lessor: { name: "Hélène Marchand" },
      tenants: [{ name: "Julien Lefèvre" }],
      guarantors: [{ name: "Garantie SA", guarantee: "caution solidaire" }],
      premises: { estate_type: "Appartement", area: 32.5, rooms: 2, construction_period: "1962" },
      dates: { start_date: "2025-09-01", duration_months: 12 },
      rent: {
        charge_settlement_mode: "FLAT",
        payment_method: "prélèvement automatique",
        rent_control: { reference: 14.2, increased_reference: 17.04 },
      },
      revision: { index: "IRL", reference_quarter: "2025-Q2", reference_value: 146.68 },
      deposit: { amount: 1500 },
      special_conditions: ["Animaux acceptés", "Jardin entretenu par le locataire"],
      signatures: { place: "Lyon", copies: 3 },
    });
    expect(contractMarkup(contract)).toContain("Julien Lefèvre");
  });

  it("hashes equal contracts equally whatever the key order, and a changed fact differently", () => {
    const a = buildLeaseContract(facts());
    const reordered = Object.fromEntries(Object.entries(a).reverse());
    expect(sha256Of(stableJson(reordered))).toBe(sha256Of(stableJson(a)));
    const moved = facts();
    moved.parties[0].lessee.address_city = "Paris";
    expect(sha256Of(stableJson(buildLeaseContract(moved)))).not.toBe(sha256Of(stableJson(a)));
  });
});
