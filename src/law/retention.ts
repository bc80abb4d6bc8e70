import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * Whether a data subject's personal data may be erased today (GDPR art. 17), or a legal
 * retention still applies (art. 17(3)(b) a legal obligation, (e) the establishment, exercise or
 * defence of legal claims). Pure: the caller gathers the facts (docs/personal-data.md).
 */

export const RGPD_17 = "Règlement (UE) 2016/679 (RGPD), art. 17";
export const LOI_89_7_1 = `${LOI_89}, art. 7-1`;
export const CODE_CIVIL_2224 = "Code civil, art. 2224";
export const CODE_CIVIL_2229 = "Code civil, art. 2229";
export const CODE_COMMERCE_L123_22 = "Code de commerce, art. L123-22";

/** Loi 89-462 art. 7-1: every action deriving from a residential lease prescribes in 3 years. */
export const LEASE_LIMITATION_YEARS = 3;
/** Code civil art. 2224: personal actions prescribe in 5 years (a contract outside loi 89-462). */
export const CIVIL_LIMITATION_YEARS = 5;
/** Code de commerce L123-22: accounting documents and their vouchers are kept 10 years. */
export const ACCOUNTING_YEARS = 10;

export interface ErasureFacts {
  /** Associations not ended on leases not over (DRAFT … FINALISATION). */
  active_lease_count: number;
  /** Sum of the positive balances (euros) of the accounts of the subject's leases. */
  unpaid_balance: number;
  /** The last day the subject was bound by a lease, or null when never (YYYY-MM-DD). */
  last_lease_end: string | null;
  /** The latest due day of the deposit of one of those leases (art. 22), or null. */
  last_deposit_due_on?: string | null;
  /** The latest regularisation of the charges of one of those leases (art. 23), or null. */
  last_regularisation_on?: string | null;
}

/**
 * When the 3 years of art. 7-1 start: the latest of the lease's end, its deposit's due day and its
 * last charges regularisation, each the day a claim deriving from the lease could be known (code
 * civil art. 2224: « à compter du jour où le titulaire d'un droit a connu ou aurait dû connaître les
 * faits »): the tenant's claim to the deposit is born when it falls due, the parties' claims on the
 * charges when they are regularised.
 */
export function limitationStart(...days: readonly (string | null | undefined)[]): string | null {
  const known = days.filter((d): d is string => typeof d === "string").sort();
  return known.at(-1) ?? null;
}

/** The day after `date`: erasure is allowed once the period's last day is over (code civil art. 2229). */
export function dayAfter(date: string): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString().slice(0, 10);
}

/**
 * The last day of a limitation of `years` from `start`, and the first day erasure is allowed:
 * « la prescription est acquise lorsque le dernier jour du terme est accompli » (code civil art.
 * 2229), so the data is kept through that last day and may go from the day after.
 */
export function limitationPeriod(start: string, years: number) {
  const retained_until = addYears(start, years);
  return { retained_until, erasable_from: dayAfter(retained_until) };
}

/** Art. 7-1's 3 years from the latest of `days` (the first is always given). */
const leaseLimitation = (first: string, ...later: (string | null | undefined)[]) => {
  const start = limitationStart(first, ...later) ?? first;
  return { start, ...limitationPeriod(start, LEASE_LIMITATION_YEARS) };
};

/** `date` plus whole years (29 February goes to 28 February in a common year). */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const year = y + years;
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${String(year).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(Math.min(d, last)).padStart(2, "0")}`;
}

/** A lessee's retentions, each a verdict; erasure goes ahead only when none FAILs. */
export function lesseeErasureVerdicts(facts: ErasureFacts, today: string): Verdict[] {
  const verdicts: Verdict[] = [];
  verdicts.push(
    facts.active_lease_count > 0
      ? verdict(
          "ACTIVE_LEASE",
          "FAIL",
          `The lessee is party to ${facts.active_lease_count} lease(s) not over: their data is needed to perform the lease (RGPD art. 6(1)(b), art. 17(1)(a))`,
          `${RGPD_17}(1)(a); art. 6(1)(b)`,
          { active_lease_count: facts.active_lease_count },
        )
      : verdict("ACTIVE_LEASE", "PASS", "No lease in progress", `${RGPD_17}(1)(a)`, {
          active_lease_count: 0,
        }),
  );
  verdicts.push(
    facts.unpaid_balance > 0
      ? verdict(
          "UNPAID_BALANCE",
          "FAIL",
          `The lessee's accounts show ${facts.unpaid_balance.toFixed(2)} EUR unpaid: kept to claim it (RGPD art. 17(3)(e); ${LOI_89_7_1}: 3 years)`,
          `${RGPD_17}(3)(e); ${LOI_89_7_1}`,
          { unpaid_balance: facts.unpaid_balance },
        )
      : verdict("UNPAID_BALANCE", "PASS", "Nothing unpaid", `${RGPD_17}(3)(e)`, { unpaid_balance: 0 }),
  );
  if (facts.last_lease_end === null) {
    verdicts.push(
      verdict("LEASE_LIMITATION", "NOT_APPLICABLE", "Never party to a lease", LOI_89_7_1, {
        last_lease_end: null,
      }),
    );
  } else {
    const { start, retained_until, erasable_from } = leaseLimitation(
      facts.last_lease_end,
      facts.last_deposit_due_on,
      facts.last_regularisation_on,
    );
    const figures = {
      last_lease_end: facts.last_lease_end,
      last_deposit_due_on: facts.last_deposit_due_on ?? null,
      last_regularisation_on: facts.last_regularisation_on ?? null,
      limitation_start: start,
      retained_until,
      erasable_from,
    };
    const ref = `${LOI_89_7_1}; ${CODE_CIVIL_2224}; ${CODE_CIVIL_2229}`;
    verdicts.push(
      today < erasable_from
        ? verdict(
            "LEASE_LIMITATION",
            "FAIL",
            `Actions deriving from the lease prescribe 3 years after ${start}, the latest of its end, its deposit's due day and its last charges regularisation (${LOI_89_7_1}; ${CODE_CIVIL_2224}): data kept until ${retained_until}, erasable from ${erasable_from} (${CODE_CIVIL_2229}; RGPD art. 17(3)(e))`,
            `${ref}; ${RGPD_17}(3)(e)`,
            figures,
          )
        : verdict(
            "LEASE_LIMITATION",
            "PASS",
            `Limitation period over: its last day was ${retained_until} (${CODE_CIVIL_2229})`,
            ref,
            figures,
          ),
    );
  }
  // The accounting documents (the rent cycle's calls and payments) are kept 10 years, but they hold
  // amounts, dates and lease ids, none of the erased fields: they do not hold the erasure back.
  verdicts.push(
    verdict(
      "ACCOUNTING_RECORDS",
      "NOT_APPLICABLE",
      "Accounting documents are kept 10 years without the erased fields (amounts, dates and lease ids stay)",
      CODE_COMMERCE_L123_22,
      { retention_years: ACCOUNTING_YEARS },
    ),
  );
  return verdicts;
}

/** The first verdict that holds the erasure back, or null. */
export const retentionThatApplies = (verdicts: readonly Verdict[]) =>
  verdicts.find((v) => v.status === "FAIL") ?? null;

export interface OwnerErasureFacts {
  /** Estates the owner owns now (estates read model). */
  estate_count: number;
  /** Leases not over (DRAFT … FINALISATION) on those estates. */
  active_lease_count: number;
}

/**
 * An owner's retentions (docs/personal-data.md): held while it owns an estate or one of its
 * estates has a lease in progress (the management of the estate and the lease need the owner:
 * RGPD art. 6(1)(b), 17(1)(a)). Its accounting records stay 10 years without the erased fields.
 */
export function ownerErasureVerdicts(facts: OwnerErasureFacts): Verdict[] {
  const { estate_count, active_lease_count } = facts;
  return [
    estate_count > 0
      ? verdict(
          "ESTATES_OWNED",
          "FAIL",
          `The owner owns ${estate_count} estate(s): their data is needed to manage them (RGPD art. 6(1)(b), art. 17(1)(a)); transfer or delete the estates first`,
          `${RGPD_17}(1)(a); art. 6(1)(b)`,
          { estate_count },
        )
      : verdict("ESTATES_OWNED", "PASS", "Owns no estate", `${RGPD_17}(1)(a)`, { estate_count: 0 }),
    active_lease_count > 0
      ? verdict(
          "ACTIVE_LEASE",
          "FAIL",
          `The owner is the lessor of ${active_lease_count} lease(s) not over: their data is needed to perform the lease (RGPD art. 6(1)(b), art. 17(1)(a))`,
          `${RGPD_17}(1)(a); art. 6(1)(b)`,
          { active_lease_count },
        )
      : verdict("ACTIVE_LEASE", "PASS", "No lease in progress on its estates", `${RGPD_17}(1)(a)`, {
          active_lease_count: 0,
        }),
    accountingRecords(),
  ];
}

/**
 * A contact's retentions: none found in the law for a third party's contact details (a
 * tradesperson, an insurer, a syndic, an agency, a notary); the accounting records naming it
 * as a provider hold its id only. Erasure goes ahead (docs/personal-data.md).
 */
export function contactErasureVerdicts(): Verdict[] {
  return [
    verdict(
      "CONTRACT_IN_PROGRESS",
      "NOT_APPLICABLE",
      "No contract with a contact is recorded here: its data serves to reach it, which erasure ends (RGPD art. 17(1)(a))",
      `${RGPD_17}(1)(a)`,
    ),
    accountingRecords(),
  ];
}

/** Accounting documents are kept, without the erased fields: they do not hold an erasure back. */
const accountingRecords = () =>
  verdict(
    "ACCOUNTING_RECORDS",
    "NOT_APPLICABLE",
    "Accounting documents are kept 10 years without the erased fields (amounts, dates and ids stay)",
    CODE_COMMERCE_L123_22,
    { retention_years: ACCOUNTING_YEARS },
  );

export interface LeaseRecordsFacts {
  /** The lease is over (neither DRAFT nor PENDING_SIGNATURE, ACTIVE, NOTICE, FINALISATION). */
  over: boolean;
  /** The last day it bound anyone (YYYY-MM-DD); null when it never did (a draft given up). */
  ended_on: string | null;
  /** The positive balance of its account (euros). */
  unpaid_balance: number;
  /** Its deposit's due day (art. 22) and its last charges regularisation (art. 23); null: none. */
  deposit_due_on?: string | null;
  last_regularisation_on?: string | null;
}

/**
 * Whether a lease's own records, which name every party to it (the signed contract, the evidence
 * of its signature, its contract PDFs), may go with one party's erasure: only once the lease needs
 * them no more. While it is in progress, something is unpaid on it, or its actions have not
 * prescribed (3 years after it ended, loi n° 89-462 art. 7-1), they are kept to establish or defend
 * its claims (RGPD art. 17(3)(e)), though the party was erased elsewhere (docs/personal-data.md).
 */
export function leaseRecordsVerdict(facts: LeaseRecordsFacts, today: string): Verdict {
  const rule = "LEASE_RECORDS";
  if (!facts.over)
    return verdict(
      rule,
      "FAIL",
      "The lease is in progress: its signed contract and its evidence are kept to perform it (RGPD art. 6(1)(b), art. 17(1)(a))",
      `${RGPD_17}(1)(a); art. 6(1)(b)`,
    );
  if (facts.unpaid_balance > 0)
    return verdict(
      rule,
      "FAIL",
      `The lease's account shows ${facts.unpaid_balance.toFixed(2)} EUR unpaid: its signed contract is kept to claim it (RGPD art. 17(3)(e); ${LOI_89_7_1})`,
      `${RGPD_17}(3)(e); ${LOI_89_7_1}`,
      { unpaid_balance: facts.unpaid_balance },
    );
  if (facts.ended_on !== null) {
    const { start, retained_until, erasable_from } = leaseLimitation(
      facts.ended_on,
      facts.deposit_due_on,
      facts.last_regularisation_on,
    );
    if (today < erasable_from)
      return verdict(
        rule,
        "FAIL",
        `Actions deriving from the lease prescribe 3 years after ${start}, the latest of its end, its deposit's due day and its last charges regularisation (${LOI_89_7_1}): its signed contract is kept until ${retained_until}, erasable from ${erasable_from} (${CODE_CIVIL_2229}; RGPD art. 17(3)(e))`,
        `${LOI_89_7_1}; ${CODE_CIVIL_2229}; ${RGPD_17}(3)(e)`,
        { ended_on: facts.ended_on, limitation_start: start, retained_until, erasable_from },
      );
  }
  return verdict(rule, "PASS", "The lease is over, nothing unpaid, its actions prescribed", LOI_89_7_1, {
    ended_on: facts.ended_on,
  });
}
