/**
 * The view model of a French residential lease contract (docs/lease-contract.md): everything the
 * templates print, already looked up. Lease code builds it from the lease, its parties, the
 * estate and its diagnoses; the templates only format it. Dates `YYYY-MM-DD`, amounts in euros.
 */

export type ContractLeaseType = "UNFURNISHED" | "FURNISHED" | "STUDENT" | "MOBILITY";

export interface ContractParty {
  /** "individual" (a person) or "company" (a legal person). */
  kind: "individual" | "company";
  /** Full name or company name as it must appear in the contract. */
  name: string;
  address: string | null;
  email: string | null;
  birth_date: string | null;
  birth_place: string | null;
  /** Company only: legal form, registration number (SIREN), representative. */
  company_details: string | null;
}

export interface ContractGuarantor extends ContractParty {
  /** e.g. "caution solidaire", with its maximum amount and duration when limited. */
  guarantee: string;
  max_amount: number | null;
}

export interface ContractPremises {
  address: string;
  /** "Appartement", "Maison", ... */
  estate_type: string;
  /** Living area (surface habitable) in m². */
  area: number;
  /** Number of main rooms (pièces principales). */
  rooms: number | null;
  floor: number | null;
  building: string | null;
  lot_number: string | null;
  /** e.g. "1946-1970" or a year. */
  construction_period: string | null;
  /** The building's legal regime: "copropriété" or "monopropriété"; null when not recorded. */
  legal_regime: string | null;
  /** Individual or collective heating and hot water, with the energy used. */
  heating: string | null;
  hot_water: string | null;
  /** Private parts and equipment (cave, parking, jardin...). */
  private_parts: string[];
  /** Equipment of the dwelling (cuisine équipée, installations sanitaires...). */
  equipment: string[];
  /** Common parts and equipment (ascenseur, local vélos...). */
  common_parts: string[];
  /** Access to information technologies (fibre, TV...). */
  it_access: string[];
  /** FURNISHED / MOBILITY: the furniture list is annexed; here its summary. */
  furniture: string[];
}

export interface ContractDpe {
  energy_label: string;
  ges_label: string;
  energy_consumption: number | null;
  ges_emission: number | null;
  diagnosis_date: string;
  /** The legal end of validity (docs/design.md §6, docs/dpe.md). */
  valid_until: string;
  reference_number: string;
  /** Estimated yearly energy spending, as the DPE states it, e.g. "entre 890 € et 1 250 €". */
  energy_cost_estimate: string | null;
}

export interface LeaseContract {
  lease_id: string;
  lease_type: ContractLeaseType;
  /** "residence principale" or "mixte professionnel et habitation". */
  usage: "RESIDENTIAL" | "MIXED";
  lessor: ContractParty & { represented_by: string | null };
  tenants: ContractParty[];
  guarantors: ContractGuarantor[];
  premises: ContractPremises;
  dates: {
    start_date: string;
    end_date: string | null;
    duration_months: number;
  };
  /** MOBILITY only: the reason (formation professionnelle, études supérieures, mission temporaire...). */
  mobility_reason: string | null;
  rent: {
    /** Monthly rent excluding charges. */
    amount: number;
    charges_amount: number;
    /** PROVISION: monthly advance with yearly adjustment; FLAT: forfait (furnished and mobility only). */
    charge_settlement_mode: "PROVISION" | "FLAT";
    payment_day: number;
    payment_method: string;
    /** How often the rent is paid: "mensuel", "trimestriel", "annuel". */
    frequency: string;
    /** "à terme à échoir" (in advance) or "à terme échu" (in arrears), as the lease says. */
    term: string;
    /** In a rent-control area: the reference and increased reference rents (€/m²/month), and any complement. */
    rent_control: {
      reference: number;
      increased_reference: number;
      /** A complément de loyer, part of the rent above (ELAN art. 140 III B), and what justifies it. */
      complement: number | null;
      complement_justification: string | null;
      /** The rent less the complement: what the reference rents cap. */
      base_amount: number;
    } | null;
    /** The previous tenant's last rent when the dwelling was let in the last 18 months. */
    previous_rent: { amount: number; paid_on: string } | null;
  };
  /** null: no revision clause (e.g. a mobility lease). */
  revision: { index: "IRL"; reference_quarter: string; reference_value: number } | null;
  deposit: { amount: number };
  dpe: ContractDpe | null;
  /** Other estate diagnostics joined (type and date). */
  diagnostics: { type: string; date: string | null; valid_until: string | null }[];
  special_conditions: string[];
  signatures: { place: string | null; date: string | null; copies: number };
}
