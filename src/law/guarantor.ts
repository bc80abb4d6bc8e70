import { addMonths } from "./calendar.ts";
import { cents } from "./money.ts";
import { type Verdict, verdict } from "./verdict.ts";

/**
 * Telling the guarantor (caution) of the tenant's default. Code civil art. 2303 (ordonnance
 * n° 2021-1192, in force since 1 January 2022): « Le créancier professionnel est tenu d'informer
 * toute caution personne physique de la défaillance du débiteur principal dès le premier incident
 * de paiement non régularisé dans le mois de l'exigibilité de ce paiement, à peine de déchéance de
 * la garantie des intérêts et pénalités échus entre la date de cet incident et celle à laquelle
 * elle en a été informée. » The service tells every guarantor, whether the landlord is a
 * professional creditor or not (docs/decisions.md, "The guarantor's notices").
 *
 * The commandement de payer's copy within 15 days (loi n° 89-462 art. 24 I al. 3) is
 * `guarantorNotice` in src/law/arrears.ts.
 */

export const ART_2303 = "code civil, art. 2303";

export interface GuarantorDefaultFacts {
  due_date: string;
  /** What is still owed on the call. */
  remaining_amount: number;
  today: string;
}

/**
 * PASS when the call is a payment incident « non régularisé dans le mois de l'exigibilité »:
 * something is still owed a month after its due date (the guarantor is told from that day on);
 * NOT_APPLICABLE otherwise, with the day it would become one.
 */
export function guarantorDefaultVerdict(facts: GuarantorDefaultFacts): Verdict {
  const incident_on = addMonths(facts.due_date, 1);
  const details = { due_date: facts.due_date, incident_on, remaining_amount: facts.remaining_amount };
  if (cents(facts.remaining_amount) <= 0)
    return verdict("GUARANTOR_DEFAULT_NOTICE", "NOT_APPLICABLE", "The call is paid", ART_2303, details);
  if (facts.today < incident_on)
    return verdict(
      "GUARANTOR_DEFAULT_NOTICE",
      "NOT_APPLICABLE",
      `Not regularised by ${incident_on}, a month after its due date, the call is an incident the guarantor is told of (${ART_2303})`,
      ART_2303,
      details,
    );
  return verdict(
    "GUARANTOR_DEFAULT_NOTICE",
    "PASS",
    `Unpaid a month after its due date: the guarantor is told of the default (${ART_2303}), else they owe no interest nor penalty from ${incident_on}`,
    ART_2303,
    details,
  );
}
