import { cents, toEuros } from "../../../law/money.ts";
import { unprocessable } from "../../../platform/errors.ts";
import { renderInThread } from "../../../platform/pdf/renderInThread.ts";
import {
  compileTemplate,
  documentOf,
  formatEuro,
  markupToContent,
} from "../../../platform/pdf/renderTemplate.ts";
import type { ContractLeaseType, LeaseContract } from "./leaseContract.ts";
import { partials, TEMPLATE_VERSION, templates } from "./templates.ts";

export { TEMPLATE_VERSION };

/** What the templates read beyond the contract: wording derived once, here. */
type ContractView = LeaseContract & {
  furnished: boolean;
  duration_text: string;
  revision_quarter_label: string;
  total_monthly: number;
  deposit_text: string;
  several_tenants: boolean;
  tenant_names: string;
  guarantor_names: string;
  mobility_reason: string;
  payment_period: string;
};

const compiled = Object.fromEntries(
  Object.entries(templates).map(([type, source]) => [type, compileTemplate<ContractView>(source, partials)]),
) as Record<ContractLeaseType, (view: ContractView) => string>;

export const CONTRACT_LEASE_TYPES = Object.keys(templates) as ContractLeaseType[];

const TITLES: Record<ContractLeaseType, string> = {
  UNFURNISHED: "Contrat de location — logement nu",
  FURNISHED: "Contrat de location — logement meublé",
  STUDENT: "Contrat de location — logement meublé loué à un étudiant",
  MOBILITY: "Bail mobilité",
};

/** The period the payment day falls in, for each frequency. */
const PAYMENT_PERIODS: Record<string, string> = {
  mensuel: "de chaque mois",
  trimestriel: "du premier mois de chaque trimestre",
  annuel: "du premier mois de chaque année de location",
};

/** `2025-Q2` -> "2e trimestre 2025". */
export function quarterLabel(quarter: string): string {
  const m = /^(\d{4})-Q([1-4])$/.exec(quarter);
  if (!m) return quarter;
  return `${m[2] === "1" ? "1er" : `${m[2]}e`} trimestre ${m[1]}`;
}

export function durationText(months: number): string {
  if (months % 12 === 0) return `${months / 12} an${months >= 24 ? "s" : ""}`;
  return `${months} mois`;
}

/** The deposit clause, citing the cap of the lease type (loi n° 89-462); plain text (a value). */
function depositText(contract: LeaseContract): string {
  const amount = contract.deposit.amount;
  switch (contract.lease_type) {
    case "UNFURNISHED":
      return `Dépôt de garantie : ${formatEuro(amount)}, au plus un mois de loyer hors charges (loi n° 89-462, art. 22), restitué dans le délai légal après la remise des clés.`;
    case "FURNISHED":
    case "STUDENT":
      return `Dépôt de garantie : ${formatEuro(amount)}, au plus deux mois de loyer hors charges (loi n° 89-462, art. 25-6), restitué dans le délai légal après la remise des clés.`;
    case "MOBILITY":
      return amount === 0
        ? "Aucun dépôt de garantie n'est exigé (loi n° 89-462, art. 25-13)."
        : `Dépôt de garantie indiqué : ${formatEuro(amount)} — aucun dépôt de garantie ne peut être exigé pour un bail mobilité (loi n° 89-462, art. 25-13).`;
  }
}

/** The view the templates render. */
export function contractView(contract: LeaseContract): ContractView {
  const total = cents(contract.rent.amount) + cents(contract.rent.charges_amount);
  return {
    ...contract,
    furnished: contract.lease_type !== "UNFURNISHED",
    duration_text: durationText(contract.dates.duration_months),
    revision_quarter_label: contract.revision ? quarterLabel(contract.revision.reference_quarter) : "",
    total_monthly: toEuros(total),
    deposit_text: depositText(contract),
    several_tenants: contract.tenants.length > 1,
    tenant_names: contract.tenants.map((t) => t.name).join(", "),
    guarantor_names: contract.guarantors.map((g) => g.name).join(", "),
    mobility_reason: contract.mobility_reason ?? "motif non renseigné",
    payment_period: PAYMENT_PERIODS[contract.rent.frequency] ?? "de chaque mois",
  };
}

/** The template of a lease type; a type without one is a 422 naming it. */
export function requireTemplate(leaseType: string): (view: ContractView) => string {
  const template = compiled[leaseType as ContractLeaseType];
  if (!template) {
    throw unprocessable(`No contract template for lease type ${leaseType}`, [
      {
        field: "lease_type",
        message: `no contract template for ${leaseType}; templates exist for ${CONTRACT_LEASE_TYPES.join(", ")}`,
      },
    ]);
  }
  return template;
}

/** The contract as markup text (what the PDF shows, before layout). */
export function contractMarkup(contract: LeaseContract): string {
  return requireTemplate(contract.lease_type)(contractView(contract));
}

/** The lease contract as PDF bytes (A4, sandboxed pdfmake), rendered on a render thread. */
export function renderLeaseContract(contract: LeaseContract): Promise<Buffer> {
  return renderInThread(import.meta.url, "renderLeaseContractHere", contract);
}

/**
 * The lease contract as PDF bytes, rendered in this thread (what a render thread runs). pdfmake
 * and its fonts are loaded here, on the first render: the API thread never renders, and loading
 * them there cost it about 20 MB (docs/performance.md, "The service's memory").
 */
export async function renderLeaseContractHere(contract: LeaseContract): Promise<Buffer> {
  const { renderPdf } = await import("../../../platform/pdf/renderPdf.ts");
  const content = markupToContent(contractMarkup(contract));
  return renderPdf(
    documentOf(content, { title: TITLES[contract.lease_type], subject: `Bail ${contract.lease_id}` }),
  );
}

/** A readable file name for Content-Disposition, e.g. `bail-meuble-2025-09-01-3f2a1c0e.pdf`. */
export function contractFileName(contract: Pick<LeaseContract, "lease_type" | "lease_id" | "dates">): string {
  const kind = {
    UNFURNISHED: "bail-logement-nu",
    FURNISHED: "bail-meuble",
    STUDENT: "bail-meuble-etudiant",
    MOBILITY: "bail-mobilite",
  }[contract.lease_type];
  return `${kind ?? "bail"}-${contract.dates.start_date}-${contract.lease_id.slice(0, 8)}.pdf`;
}
