import { addDays, addMonths } from "./calendar.ts";
import { cents, toEuros } from "./money.ts";
import { daysLate } from "./reminders.ts";
import type { PeriodFigures } from "./rentPeriods.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Arrears and the commandement de payer (docs/rent-cycle.md, "Arrears"). Loi n° 89-462 art. 24 I,
 * as loi n° 2023-668 du 27 juillet 2023 (art. 10) wrote it: the clause résolutoire for unpaid rent
 * or charges « ne produit effet que six semaines après un commandement de payer demeuré
 * infructueux » (two months before). That law took effect on 29 July 2023 and does not reach
 * leases concluded before: they keep the delay of their own clause as the law then framed it, two
 * months (Cass. 3e civ., avis, 13 juin 2024, n° 24-70.002).
 *
 * The commandement, served by a commissaire de justice, contains on pain of nullity (art. 24 I):
 * the delay to pay, the monthly rent and charges, the account of the debt (décompte), the warning
 * of a judicial termination and eviction, the fonds de solidarité pour le logement, and the right
 * to ask the judge for time (code civil art. 1343-5). The arrears statement gives the figures.
 */

export const ART_24 = `${LOI_89}, art. 24 I`;
export const LOI_2023_668 = "loi n° 2023-668 du 27 juillet 2023, art. 10";
export const AVIS_2024 = "Cass. 3e civ., avis, 13 juin 2024, n° 24-70.002";
/** The day loi n° 2023-668 took effect: leases concluded from then on have six weeks. */
export const SIX_WEEKS_FROM = "2023-07-29";

export interface ArrearsCall extends PeriodFigures {
  call_id: string;
  paid_amount: number;
  /** A rent call, or the opening balance of a lease taken over (due on its takeover date). */
  kind?: "RENT_CALL" | "OPENING_BALANCE";
}

export interface ArrearsPeriod extends ArrearsCall {
  remaining_amount: number;
  days_late: number;
}

/**
 * What is owed on `today`: each call due by then with something left to pay, oldest due first,
 * with its days late, and the total (cents summed, so the total is the periods' sum exactly).
 * Nothing is added to it: no penalty (art. 4 i) and no fee (art. 4 p).
 */
export function arrearsOf(calls: readonly ArrearsCall[], today: string) {
  const periods: ArrearsPeriod[] = calls
    .filter((c) => c.due_date <= today && cents(c.total_amount) > cents(c.paid_amount))
    // An opening balance is the oldest debt whatever its date: payments settle it first.
    .sort(
      (a, b) =>
        Number(b.kind === "OPENING_BALANCE") - Number(a.kind === "OPENING_BALANCE") ||
        a.due_date.localeCompare(b.due_date) ||
        a.period_start.localeCompare(b.period_start),
    )
    .map((c) => ({
      ...c,
      remaining_amount: toEuros(cents(c.total_amount) - cents(c.paid_amount)),
      days_late: daysLate(c.due_date, today),
    }));
  const total = periods.reduce((sum, p) => sum + cents(p.remaining_amount), 0);
  return { periods, total_owed: toEuros(total) };
}

export interface CommandementFacts {
  /** The day the lease was concluded (signed); null when unknown. */
  concluded_on: string | null;
  today: string;
  total_owed: number;
  monthly_rent: number;
  monthly_charges: number;
  /** Active guarantors of the lease (null: unknown): the commandement is served on them too. */
  guarantor_count?: number | null;
}

/** Art. 24 I al. 3: the commandement is served on the guarantor within 15 days of the tenant's. */
export const GUARANTOR_NOTICE_DAYS = 15;

/** What a commandement de payer must state on pain of nullity (art. 24 I, 1° to 6°). */
export const COMMANDEMENT_MENTIONS = [
  "le délai dont dispose le locataire pour payer sa dette",
  "le montant mensuel du loyer et des charges",
  "le décompte de la dette",
  "l'avertissement qu'à défaut de paiement ou de délais demandés, le locataire s'expose à une procédure judiciaire de résiliation du bail et d'expulsion",
  "la possibilité de saisir le fonds de solidarité pour le logement du département (adresse précisée)",
  "la possibilité de saisir à tout moment le juge pour un délai de grâce (code civil, art. 1343-5)",
] as const;

const RULE = "COMMANDEMENT_DE_PAYER";

/**
 * The art. 24 facts of a commandement de payer served today: PASS with the delay (`payment_delay`
 * SIX_WEEKS or TWO_MONTHS) and the earliest day the clause résolutoire could take effect;
 * NOT_APPLICABLE when nothing is owed; UNKNOWN when the lease's conclusion date is unknown (the
 * delay depends on it).
 */
export function commandementVerdict(facts: CommandementFacts): Verdict {
  const details = {
    total_owed: facts.total_owed,
    monthly_rent: facts.monthly_rent,
    monthly_charges: facts.monthly_charges,
    concluded_on: facts.concluded_on,
    served_on: facts.today,
    required_mentions: [...COMMANDEMENT_MENTIONS],
  };
  if (cents(facts.total_owed) <= 0)
    return verdict(RULE, "NOT_APPLICABLE", "Nothing is owed: no commandement de payer", ART_24, details);
  if (facts.concluded_on === null)
    return verdict(
      RULE,
      "UNKNOWN",
      `The lease's conclusion date is unknown: six weeks if concluded from ${SIX_WEEKS_FROM} (${LOI_2023_668}), else the lease's clause, two months (${AVIS_2024})`,
      ART_24,
      details,
    );
  // The delay runs from the service: its last day is the last day to pay, the clause takes effect
  // the day after (« ne produit effet que six semaines après un commandement demeuré infructueux »).
  const sixWeeks = facts.concluded_on >= SIX_WEEKS_FROM;
  const last_day_to_pay = sixWeeks ? addDays(facts.today, 42) : addMonths(facts.today, 2);
  const figures = {
    ...details,
    payment_delay: sixWeeks ? "SIX_WEEKS" : "TWO_MONTHS",
    last_day_to_pay,
    clause_effective_from: addDays(last_day_to_pay, 1),
    guarantor_notice: guarantorNotice(facts),
  };
  const guarantor = figures.guarantor_notice.message;
  if (sixWeeks)
    return verdict(
      RULE,
      "PASS",
      `The clause résolutoire takes effect six weeks after a commandement de payer left unanswered (${ART_24}, ${LOI_2023_668}). ${guarantor}`,
      `${ART_24}; ${LOI_2023_668}`,
      figures,
    );
  return verdict(
    RULE,
    "PASS",
    `A lease concluded before ${SIX_WEEKS_FROM} keeps its clause's delay, two months after a commandement de payer left unanswered (${ART_24}; ${AVIS_2024}). ${guarantor}`,
    `${ART_24}; ${AVIS_2024}`,
    figures,
  );
}

/**
 * Art. 24 I al. 3: « le commandement de payer est signifié à la caution dans un délai de quinze
 * jours à compter de sa signification au locataire. A défaut, la caution ne peut être tenue au
 * paiement des pénalités ou des intérêts de retard. »
 */
export function guarantorNotice(facts: Pick<CommandementFacts, "today" | "guarantor_count">) {
  const notify_by = addDays(facts.today, GUARANTOR_NOTICE_DAYS);
  const count = facts.guarantor_count ?? null;
  const required = count === null ? null : count > 0;
  const message =
    required === false
      ? "The lease has no guarantor to serve."
      : `${required === null ? "If the lease has a guarantor, the" : "The"} commandement must be served on the guarantor within 15 days, by ${notify_by}; else the guarantor owes no penalty nor late interest (${ART_24} al. 3).`;
  return { required, notify_by, legal_reference: `${ART_24} al. 3`, message };
}
