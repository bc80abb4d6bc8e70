import { cents } from "./money.ts";
import { type Verdict, verdict } from "./verdict.ts";

/**
 * Revenus fonciers (docs/accounting.md, "Revenus fonciers (form 2044)").
 *
 * Micro-foncier, CGI art. 32, 1: « Par dérogation aux dispositions de l'article 31, lorsque le
 * montant du revenu brut annuel défini aux articles 29 et 30 n'excède pas 15 000 euros, le revenu
 * imposable correspondant est fixé à une somme égale au montant de ce revenu brut diminué d'un
 * abattement ». The ceiling is the household's, over all its rentals: the service judges the rents
 * it keeps, and says so.
 *
 * Line 222 of the form 2044 (CGI art. 31, I, 1°, e; BOI-RFPI-BASE-20-10: « les autres frais de
 * gestion, forfaitairement fixés à 20 € par local »): the management costs not deducted for their
 * real amount (line 221: fees paid to a third party for the management, procedure costs) are a
 * flat 20 € a year per dwelling, its annexes let with it included.
 */

export const ART_32 = "CGI, art. 32, 1";
export const ART_31_E = "CGI, art. 31, I, 1°, e";
export const MICRO_FONCIER_CEILING = 15_000;
export const FLAT_MANAGEMENT_COST_PER_DWELLING = 20;

/** PASS: the year's gross rents allow the micro-foncier; FAIL: they exceed 15,000 € (the real regime applies). */
export function microFoncierVerdict(grossRents: number): Verdict {
  const eligible = cents(grossRents) <= cents(MICRO_FONCIER_CEILING);
  return verdict(
    "MICRO_FONCIER",
    eligible ? "PASS" : "FAIL",
    eligible
      ? `Gross rents of ${grossRents.toFixed(2)} € do not exceed ${MICRO_FONCIER_CEILING} €: the micro-foncier regime is possible (${ART_32})`
      : `Gross rents of ${grossRents.toFixed(2)} € exceed ${MICRO_FONCIER_CEILING} €: the real regime applies (${ART_32})`,
    ART_32,
    { gross_rents: grossRents, ceiling: MICRO_FONCIER_CEILING },
  );
}

/** Line 222: 20 € per dwelling let in the year (CGI art. 31, I, 1°, e). */
export const flatManagementCosts = (dwellings: number): number =>
  FLAT_MANAGEMENT_COST_PER_DWELLING * dwellings;
