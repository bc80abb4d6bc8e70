import { cents, euros, toEuros } from "./money.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Receipts for rent (docs/rent-cycle.md, "Receipts"). Loi n° 89-462 art. 21: « Le bailleur ou son
 * mandataire est tenu de transmettre gratuitement une quittance au locataire qui en fait la demande.
 * La quittance porte le détail des sommes versées par le locataire en distinguant le loyer et les
 * charges. […] Si le locataire effectue un paiement partiel, le bailleur est tenu de délivrer un
 * reçu. » No fee for it, ever: art. 21 (« Aucuns frais liés à la gestion de l'avis d'échéance ou
 * de la quittance ne peuvent être facturés au locataire ») and art. 4 p (a clause charging
 * « des frais de relance ou d'expédition de la quittance » is deemed unwritten).
 *
 * So, for one rent call: paid in full, a quittance stating rent and charges apart; paid in part,
 * a reçu stating what was paid and what is still due; nothing paid, nothing to acknowledge.
 */

export const ART_21 = `${LOI_89}, art. 21`;

export type ReceiptKind = "QUITTANCE" | "RECU";

export interface ReceiptFacts {
  rent_amount: number;
  charges_amount: number;
  total_amount: number;
  paid_amount: number;
}

const RULE = "RENT_RECEIPT";

/**
 * The receipt a call is owed: PASS with `details.kind` QUITTANCE (paid in full) or RECU (paid in
 * part, with `details.remaining_amount`); FAIL when nothing has been paid (art. 21 acknowledges a
 * payment: there is none). `details.fee_amount` is always 0 (art. 21, art. 4 p).
 */
export function receiptVerdict(facts: ReceiptFacts): Verdict {
  const total = cents(facts.total_amount);
  const paid = Math.min(cents(facts.paid_amount), total);
  const figures = {
    rent_amount: facts.rent_amount,
    charges_amount: facts.charges_amount,
    total_amount: facts.total_amount,
    paid_amount: toEuros(paid),
    remaining_amount: toEuros(total - paid),
    fee_amount: 0,
  };
  if (paid >= total)
    return verdict(
      RULE,
      "PASS",
      `Paid in full: a quittance stating rent and charges separately, free of charge (${ART_21})`,
      ART_21,
      { kind: "QUITTANCE", ...figures },
    );
  if (paid > 0)
    return verdict(
      RULE,
      "PASS",
      `Paid in part (${euros(paid)} of ${euros(total)}): a reçu stating what was paid and what is still due (${ART_21})`,
      ART_21,
      { kind: "RECU", ...figures },
    );
  return verdict(
    RULE,
    "FAIL",
    `Nothing has been paid on this rent call: a quittance or a reçu acknowledges a payment (${ART_21})`,
    ART_21,
    {
      ...figures,
      errors: [{ field: "call_id", message: `No payment on this call; ${euros(total)} is due` }],
    },
  );
}
