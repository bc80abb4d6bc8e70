import { addMonths } from "../../../law/calendar.ts";
import { chargeSettlementOf, firstTermMonths, lessorKind } from "../../../law/leaseTypes.ts";
import { isoDay } from "../../../platform/formatDates.ts";
import type { Row } from "../../../platform/projections/projection.ts";
import type { LeaseContractFacts } from "../../../queries/leaseContractFacts.ts";
import { constructionPeriodOf, referenceRentFor } from "../../../queries/rentRegulation.ts";
import type { ContractLeaseType, ContractParty, LeaseContract } from "./leaseContract.ts";

/**
 * The contract view model of a lease from the facts its read models hold (docs/pdf.md). Pure:
 * the same facts give the same contract, whose hash keys the render cache. Data the service does
 * not hold (an estate field not recorded yet) stays empty and the templates print "—".
 */

const str = (v: unknown): string | null => (v == null || v === "" ? null : String(v));
const num = (v: unknown): number | null => (v == null ? null : Number(v));
const day = isoDay;

const addressOf = (r: Row | null): string | null => {
  if (!r) return null;
  const city = [str(r.address_postal_code), str(r.address_city)].filter(Boolean).join(" ");
  const parts = [str(r.address_street), city || null, str(r.address_country)].filter(Boolean);
  return parts.length ? parts.join(", ") : null;
};

const personName = (r: Row) =>
  [str(r.title), str(r.first_name), str(r.last_name)].filter(Boolean).join(" ") || str(r.legal_name) || "—";

function partyOf(r: Row): ContractParty {
  const company = r.category === "company/other" || r.category === "company";
  return {
    kind: company ? "company" : "individual",
    name: company ? (str(r.legal_name) ?? personName(r)) : personName(r),
    address: addressOf(r),
    email: str(r.email),
    birth_date: company ? null : day(r.birth_date),
    birth_place: company ? null : str(r.birth_place),
    company_details: null,
  };
}

const ESTATE_TYPES: Record<string, string> = { apartment: "Appartement", house: "Maison", studio: "Studio" };

const PAYMENT_METHODS: Record<string, string> = {
  VIREMENT_BANCAIRE: "virement bancaire",
  PRELEVEMENT_AUTOMATIQUE: "prélèvement automatique",
  CHEQUE: "chèque",
  ESPECES: "espèces",
  CARTE_BANCAIRE: "carte bancaire",
  MANDAT_CASH: "mandat cash",
  AUTRE: "autre moyen convenu",
};

const DIAGNOSTICS: Record<string, string> = {
  lead: "Constat de risque d'exposition au plomb (CREP)",
  asbestos: "État mentionnant l'absence ou la présence d'amiante",
  electrical: "État de l'installation intérieure d'électricité",
  gas: "État de l'installation intérieure de gaz",
  risk_assessment: "État des risques et pollutions (ERP)",
  coownership_rules: "Extraits du règlement de copropriété",
};

const SUPPLY_MODES: Record<string, string> = { INDIVIDUAL: "individuel", COLLECTIVE: "collectif" };
const LEGAL_REGIMES: Record<string, string> = { COPROPRIETE: "copropriété", MONOPROPRIETE: "monopropriété" };
const FREQUENCIES: Record<string, string> = {
  MONTHLY: "mensuel",
  QUARTERLY: "trimestriel",
  ANNUALLY: "annuel",
};
const TERMS: Record<string, string> = { TERME_A_ECHOIR: "à terme à échoir", TERME_ECHU: "à terme échu" };

/** `{mode: "COLLECTIVE", energy: "gaz"}` -> "collectif, gaz"; null when not recorded. */
function supplyOf(v: unknown): string | null {
  const supply = v as { mode?: string; energy?: string | null } | null;
  if (!supply?.mode) return null;
  return [SUPPLY_MODES[supply.mode] ?? null, str(supply.energy)].filter(Boolean).join(", ");
}
const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** 18 months before the start (décret n° 2015-587: the previous rent is stated when the dwelling was let then). */
const eighteenMonthsBefore = (start: string) => addMonths(start, -18);

export function buildLeaseContract(facts: LeaseContractFacts): LeaseContract {
  const { lease, estate, place, owner } = facts;
  const leaseType = String(lease.lease_type) as ContractLeaseType;
  const start = day(lease.start_date) as string;
  const end = day(lease.end_date);
  const furnished = leaseType !== "UNFURNISHED";
  const construction = day(estate?.construction_date);
  const rooms = num(estate?.number_of_room);
  const reference =
    facts.regulation && rooms !== null && construction
      ? referenceRentFor(facts.regulation, {
          rooms,
          construction_period: constructionPeriodOf(Number(construction.slice(0, 4))),
          furnished,
        })
      : null;
  const previous = facts.previous_lease;
  const custom = (lease.custom_fields ?? {}) as Record<string, unknown>;
  const tenants = facts.parties.filter((p) => p.role !== "Guarantor").map((p) => partyOf(p.lessee));
  const guarantors = facts.parties
    .filter((p) => p.role === "Guarantor")
    .map((p) => ({ ...partyOf(p.lessee), guarantee: "caution solidaire", max_amount: null }));
  const dpe = facts.dpe;
  return {
    lease_id: String(lease.id),
    lease_type: leaseType,
    usage: lease.usage_type === "MIXED_PROFESSIONAL" ? "MIXED" : "RESIDENTIAL",
    lessor: owner
      ? { ...partyOf(owner), birth_date: null, birth_place: null, represented_by: null }
      : {
          kind: "individual",
          name: "Bailleur non renseigné",
          address: null,
          email: null,
          birth_date: null,
          birth_place: null,
          company_details: null,
          represented_by: null,
        },
    tenants,
    guarantors,
    premises: {
      address: str(estate?.address) ?? addressOf(place) ?? str(place?.name) ?? "—",
      estate_type:
        (facts.estate_type && (ESTATE_TYPES[facts.estate_type.code] ?? facts.estate_type.name)) ?? "Logement",
      area: num(estate?.area) ?? 0,
      rooms,
      floor: num(estate?.floor),
      building: str(estate?.building),
      lot_number: str(estate?.lot_number),
      construction_period: construction ? construction.slice(0, 4) : null,
      legal_regime: LEGAL_REGIMES[String(estate?.legal_regime)] ?? null,
      heating: supplyOf(estate?.heating),
      hot_water: supplyOf(estate?.hot_water),
      private_parts: listOf(estate?.private_parts),
      equipment: facts.equipment,
      common_parts: listOf(estate?.common_parts),
      it_access: listOf(estate?.it_access),
      furniture: [],
    },
    dates: {
      start_date: start,
      end_date: end,
      // The law's term when the lease states none: 3 years, 6 for a company lessor (art. 10).
      duration_months:
        firstTermMonths(
          {
            lease_type: leaseType,
            start_date: start,
            end_date: end,
            duration_months: num(lease.duration_months),
          },
          lessorKind(owner?.category as string | undefined, owner?.legal_form as string | undefined),
        ) ?? 10,
    },
    // The lease's motive (art. 25-13), else what leases created before 2026-12 kept in custom_fields.
    mobility_reason:
      leaseType === "MOBILITY" ? (str(lease.mobility_motive) ?? str(custom.mobility_reason)) : null,
    rent: {
      amount: Number(lease.rent_amount),
      charges_amount: num(lease.charges_amount) ?? 0,
      charge_settlement_mode: chargeSettlementOf(leaseType, str(lease.charge_settlement_mode)),
      payment_day: num(lease.payment_day) ?? 1,
      payment_method: PAYMENT_METHODS[String(lease.payment_method)] ?? "virement bancaire",
      frequency: FREQUENCIES[String(lease.rent_frequency)] ?? "mensuel",
      term: TERMS[String(lease.payment_terms)] ?? "à terme à échoir",
      rent_control: reference
        ? {
            reference: reference.reference,
            increased_reference: reference.increased_reference,
            complement: num(lease.rent_complement),
            complement_justification: str(lease.rent_complement_justification),
            base_amount:
              (Math.round(Number(lease.rent_amount) * 100) -
                Math.round((num(lease.rent_complement) ?? 0) * 100)) /
              100,
          }
        : null,
      previous_rent:
        previous?.ended_on && previous.ended_on >= eighteenMonthsBefore(start)
          ? { amount: previous.rent_amount, paid_on: previous.ended_on }
          : null,
    },
    revision:
      lease.revision_index_type === "IRL" &&
      lease.revision_reference_quarter &&
      lease.revision_reference_value != null
        ? {
            index: "IRL",
            reference_quarter: String(lease.revision_reference_quarter),
            reference_value: Number(lease.revision_reference_value),
          }
        : null,
    deposit: { amount: num(lease.deposit_amount) ?? 0 },
    dpe: dpe
      ? {
          energy_label: dpe.energy_label,
          ges_label: dpe.ges_label,
          energy_consumption: num(dpe.details?.energy_consumption),
          ges_emission: num(dpe.details?.ges_emission),
          diagnosis_date: day(dpe.diagnosis_date) as string,
          valid_until: day(dpe.valid_until) as string,
          reference_number: str(dpe.details?.reference_number) ?? "—",
          energy_cost_estimate: null,
        }
      : null,
    diagnostics: facts.diagnostics.map((d) => ({
      type: DIAGNOSTICS[String(d.type)] ?? String(d.type),
      date: day(d.diagnosis_date),
      valid_until: day(d.valid_until),
    })),
    special_conditions: (str(lease.special_conditions) ?? "")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
    signatures: {
      // Where and when it is made: the dwelling's city, the signing day, else the printing day.
      place: str(place?.address_city) ?? str(owner?.address_city),
      date: day(lease.signed_at) ?? facts.printed_on,
      copies: 1 + tenants.length + guarantors.length,
    },
  };
}
