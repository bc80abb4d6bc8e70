import type { LetterFacts } from "../../src/queries/rentDocuments.ts";

/** A lease's letter facts (src/queries/rentDocuments.ts) for the rent documents' tests and samples. */
export const sampleLetterFacts: LetterFacts = {
  lease_id: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001",
  lease_status: "ACTIVE",
  lease_type: "UNFURNISHED",
  start_date: "2025-01-01",
  concluded_on: "2024-12-15",
  rent_amount: 800,
  charges_amount: 50,
  landlord: { name: "SCI Les Tilleuls", address: "12 rue des Lilas, 75011 Paris" },
  owner_id: null,
  lessees: [
    {
      lessee_id: "5b0e7a43-1c1f-4b7e-9d55-2f6f1a4c0c11",
      first_name: "Léa",
      last_name: "Bernard",
      email: "lea@example.fr",
    },
  ],
  guarantor_count: 0,
  estate: { address: "3 avenue Foch, 69006 Lyon" },
};
