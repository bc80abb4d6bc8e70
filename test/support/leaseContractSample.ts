import type { ContractLeaseType, LeaseContract } from "../../src/commands/leases/contract/leaseContract.ts";

/** A realistic contract view model per lease type, for the PDF tests and the sample renders in docs/. */
export function sampleContract(type: ContractLeaseType): LeaseContract {
  const furnished = type !== "UNFURNISHED";
  const mobility = type === "MOBILITY";
  return {
    lease_id: "3f2a1c0e-8d4b-4c1e-9a7f-2b6d5e8c1a90",
    lease_type: type,
    usage: "RESIDENTIAL",
    lessor: {
      kind: "individual",
      name: "Hélène Marchand",
      address: "12 rue des Lilas, 69003 Lyon",
      email: "helene.marchand@example.fr",
      birth_date: null,
      birth_place: null,
      company_details: null,
      represented_by:
        "Agence du Parc, 4 place Bellecour, 69002 Lyon (carte professionnelle CPI 6901 2024 000 012 345)",
    },
    tenants: [
      {
        kind: "individual",
        name: "Julien Lefèvre",
        address: null,
        email: "julien.lefevre@example.fr",
        birth_date: "1994-03-12",
        birth_place: "Nantes",
        company_details: null,
      },
      ...(mobility
        ? []
        : [
            {
              kind: "individual" as const,
              name: "Amélie Durand",
              address: null,
              email: "amelie.durand@example.fr",
              birth_date: "1995-11-02",
              birth_place: "Grenoble",
              company_details: null,
            },
          ]),
    ],
    guarantors: mobility
      ? []
      : [
          {
            kind: "individual",
            name: "Bernard Lefèvre",
            address: "8 allée des Chênes, 44000 Nantes",
            email: null,
            birth_date: "1962-06-30",
            birth_place: "Rennes",
            company_details: null,
            guarantee: "caution solidaire pour la durée du bail et de son renouvellement",
            max_amount: 30000,
          },
        ],
    premises: {
      address: "27 avenue Jean Jaurès, 69007 Lyon",
      estate_type: "Appartement",
      area: 48.6,
      rooms: 2,
      floor: 3,
      building: "B",
      lot_number: "14",
      construction_period: "1946-1970",
      legal_regime: "copropriété",
      heating: "individuel, gaz",
      hot_water: "individuelle, gaz",
      private_parts: ["cave n° 14", "place de stationnement n° 7"],
      equipment: ["cuisine équipée", "salle d'eau avec douche", "WC séparé", "double vitrage"],
      common_parts: ["ascenseur", "local vélos", "interphone"],
      it_access: ["raccordement fibre optique"],
      furniture: furnished
        ? [
            "literie avec couette",
            "plaques de cuisson",
            "four micro-ondes",
            "réfrigérateur avec congélateur",
            "vaisselle",
            "table et chaises",
            "étagères de rangement",
            "luminaires",
            "matériel d'entretien ménager",
          ]
        : [],
    },
    dates: {
      start_date: "2025-09-01",
      end_date: mobility ? "2026-04-30" : null,
      duration_months: type === "UNFURNISHED" ? 36 : mobility ? 8 : type === "STUDENT" ? 9 : 12,
    },
    mobility_reason: mobility ? "une mission temporaire dans le cadre de son activité professionnelle" : null,
    rent: {
      amount: 912.4,
      charges_amount: 85,
      charge_settlement_mode: furnished ? "FLAT" : "PROVISION",
      payment_day: 5,
      frequency: "mensuel",
      term: "à terme échu",
      payment_method: "virement bancaire",
      rent_control: {
        reference: 15.2,
        increased_reference: 18.24,
        complement: null,
        complement_justification: null,
        base_amount: 912.4,
      },
      previous_rent: { amount: 890, paid_on: "2025-06-05" },
    },
    revision: mobility ? null : { index: "IRL", reference_quarter: "2025-Q2", reference_value: 146.68 },
    deposit: { amount: type === "UNFURNISHED" ? 912.4 : furnished && !mobility ? 1824.8 : 0 },
    dpe: {
      energy_label: "D",
      ges_label: "C",
      energy_consumption: 212,
      ges_emission: 24,
      diagnosis_date: "2023-04-18",
      valid_until: "2033-04-17",
      reference_number: "2369E1234567A",
      energy_cost_estimate: "entre 890 € et 1 250 € par an",
    },
    diagnostics: [
      { type: "État des risques et pollutions", date: "2025-07-10", valid_until: "2026-01-10" },
      { type: "Diagnostic électricité", date: "2021-05-03", valid_until: "2027-05-03" },
      { type: "Diagnostic gaz", date: "2021-05-03", valid_until: "2027-05-03" },
    ],
    special_conditions: [
      "Animaux de compagnie acceptés.",
      "Entretien annuel de la chaudière à la charge du locataire.",
    ],
    signatures: { place: "Lyon", date: "2025-08-20", copies: mobility ? 2 : 3 },
  };
}
