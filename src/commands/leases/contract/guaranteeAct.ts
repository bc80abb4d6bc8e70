import { cents, toEuros } from "../../../law/money.ts";
import { frenchDate } from "../../../platform/frenchText.ts";
import { formatEuro, neutralise } from "../../../platform/pdf/renderTemplate.ts";
import type { ContractParty, LeaseContract } from "./leaseContract.ts";
import { durationText, quarterLabel } from "./renderLeaseContract.ts";

/**
 * The acte de cautionnement of one guarantor of a lease (loi n° 89-462 art. 22-1; code civil
 * art. 2288 ff., 2297), as markup (src/platform/pdf/renderTemplate.ts), from the lease's contract
 * view model (./buildLeaseContract.ts): the guarantor, the lessor and the tenants, the lease
 * guaranteed, the rent and its revision as the contract states them, the obligation's cap and
 * duration, the mention the guarantor writes, the copy of the lease given to them, the signatures.
 */

const TYPES: Record<LeaseContract["lease_type"], string> = {
  UNFURNISHED: "de location d'un logement nu",
  FURNISHED: "de location d'un logement meublé",
  STUDENT: "de location d'un logement meublé à un étudiant",
  MOBILITY: "de bail mobilité",
};

/**
 * The obligation's cap, when the lease states none: the rent and charges of the lease's first
 * term (docs/decisions.md, "The guarantee act").
 */
export const guaranteeCap = (contract: LeaseContract) =>
  toEuros(
    (cents(contract.rent.amount) + cents(contract.rent.charges_amount)) * contract.dates.duration_months,
  );

const line = (v: string | null | undefined) => neutralise(v ?? "");
const who = (p: ContractParty) =>
  `**${line(p.name)}**${p.birth_date ? `, né(e) le ${frenchDate(p.birth_date)}${p.birth_place ? ` à ${line(p.birth_place)}` : ""}` : ""}${p.address ? `, demeurant ${line(p.address)}` : ""}`;

export function guaranteeActMarkup(
  contract: LeaseContract,
  guarantor: ContractParty & { max_amount: number | null },
): string {
  const cap = guarantor.max_amount ?? guaranteeCap(contract);
  const duration = durationText(contract.dates.duration_months);
  const tenants = contract.tenants.map((t) => line(t.name)).join(", ");
  const revision = contract.revision
    ? `Le loyer est révisé chaque année à la date anniversaire du contrat, dans la limite de la variation de l'indice de référence des loyers (IRL) publié par l'INSEE (loi n° 89-462, art. 17-1), trimestre de référence : ${quarterLabel(contract.revision.reference_quarter)}.`
    : "Le loyer n'est pas révisable en cours de contrat.";
  const charges =
    contract.rent.charge_settlement_mode === "FLAT"
      ? `forfait de charges de ${formatEuro(contract.rent.charges_amount)} par mois`
      : `provision sur charges de ${formatEuro(contract.rent.charges_amount)} par mois, régularisée chaque année`;
  const signedOn = frenchDate(contract.signatures.date);
  return [
    "# ACTE DE CAUTIONNEMENT SOLIDAIRE",
    "Loi n° 89-462 du 6 juillet 1989, art. 22-1 ; code civil, art. 2288 et suivants, art. 2297.",
    "",
    "## 1. Les parties",
    `La caution : ${who(guarantor)}.`,
    "",
    `Le bailleur, créancier : ${who(contract.lessor)}.`,
    "",
    `Le locataire, débiteur : ${contract.tenants.map(who).join(" ; ")}.`,
    "",
    "## 2. Le bail garanti",
    `Contrat ${TYPES[contract.lease_type]} portant sur le logement situé ${line(contract.premises.address)}, prenant effet le ${frenchDate(contract.dates.start_date)}, pour une durée de ${duration}${contract.dates.end_date ? `, jusqu'au ${frenchDate(contract.dates.end_date)}` : ""}.`,
    "",
    "Un exemplaire du contrat de location est remis à la caution avec le présent acte (loi n° 89-462, art. 22-1).",
    "",
    "## 3. Le loyer et sa révision, tels qu'ils figurent au contrat",
    `Montant du loyer mensuel, hors charges : **${formatEuro(contract.rent.amount)}**, avec une ${charges}.`,
    "",
    revision,
    "",
    "## 4. L'engagement de la caution",
    `La caution s'engage, solidairement avec le locataire (${tenants}), envers le bailleur, à payer ce que lui doit le locataire au titre du bail en cas de défaillance de celui-ci : loyers, charges, indemnités d'occupation, réparations locatives et frais de procédure. Elle renonce aux bénéfices de discussion et de division : le bailleur peut la poursuivre sans poursuivre d'abord le locataire.`,
    "",
    `Montant maximal de l'engagement, en principal et accessoires : **${formatEuro(cap)}**. Durée de l'engagement : **${duration}**, soit la durée du bail${contract.dates.end_date ? ` (jusqu'au ${frenchDate(contract.dates.end_date)})` : " à compter de sa prise d'effet"}.`,
    "",
    "Reproduction de l'avant-dernier alinéa de l'article 22-1 de la loi n° 89-462 :",
    "",
    "« Lorsque le cautionnement d'obligations résultant d'un contrat de location conclu en application du présent titre ne comporte aucune indication de durée ou lorsque la durée du cautionnement est stipulée indéterminée, la caution peut le résilier unilatéralement. La résiliation prend effet au terme du contrat de location, qu'il s'agisse du contrat initial ou d'un contrat reconduit ou renouvelé, au cours duquel le bailleur reçoit notification de la résiliation. »",
    "",
    "## 5. Mention écrite par la caution (code civil, art. 2297)",
    "À peine de nullité de son engagement, la caution écrit elle-même, avant sa signature, la mention de son engagement et de son montant maximal, en toutes lettres et en chiffres, et qu'elle ne pourra exiger du bailleur qu'il poursuive d'abord le locataire. Modèle :",
    "",
    `« En me portant caution solidaire de ${tenants}, dans la limite de la somme de ${formatEuro(cap)} (montant en toutes lettres) couvrant le paiement du principal et des accessoires, pour la durée de ${duration}, je m'engage à payer au bailleur ce que lui doit le locataire en cas de défaillance de celui-ci, sans pouvoir exiger qu'il le poursuive d'abord. »`,
    "",
    "Mention écrite par la caution :",
    "",
    "| |",
    "| |",
    "| |",
    "",
    "## Signatures",
    `Fait${contract.signatures.place ? ` à ${line(contract.signatures.place)}` : ""}${signedOn ? `, le ${signedOn}` : ""}, en deux exemplaires originaux, dont un remis à la caution.`,
    "",
    "| La caution | Le bailleur |",
    `| ${line(guarantor.name)} | ${line(contract.lessor.name)} |`,
    "| Signature précédée de la mention ci-dessus | Signature |",
  ].join("\n");
}
