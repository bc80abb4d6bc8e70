import type { ExpenseKind, OwnerExpense } from "../../events/books/index.ts";
import type { DepositEvent } from "../../events/deposits.ts";
import type { AccountEvent } from "../../events/rentCycle.ts";
import { cents } from "../../law/money.ts";

/**
 * What each money event posts to a lessor's book (docs/accounting.md, "What posts where"): pure,
 * in whole cents, so a replay posts the same entries to the cent. Accounts of the plan comptable
 * général (règlement ANC n° 2014-03); the tenant's account 411 has an auxiliary account per lease.
 */

export const ACCOUNTS = {
  "120000": "Résultat de l'exercice (bénéfice)",
  "129000": "Résultat de l'exercice (perte)",
  "165000": "Dépôts et cautionnements reçus",
  "401000": "Fournisseurs",
  "411000": "Locataires",
  "467000": "Mandants : reversements au propriétaire",
  "512000": "Banque",
  "614100": "Provisions pour charges de copropriété",
  "614200": "Régularisation des provisions de copropriété",
  "614300": "Charges locatives non récupérées",
  "614800": "Charges de copropriété non déductibles ou récupérables",
  "615000": "Entretien et réparations",
  "616000": "Primes d'assurance",
  "622600": "Honoraires de gestion",
  "622800": "Frais d'administration et de gestion divers",
  "635120": "Taxes foncières",
  "661100": "Intérêts des emprunts",
  "671000": "Charges exceptionnelles sur opérations de gestion",
  "706000": "Loyers",
  "708000": "Charges locatives récupérées",
  "758000": "Produits divers de gestion courante",
  "890000": "Bilan d'ouverture",
} as const;
export type Account = keyof typeof ACCOUNTS;

export const JOURNALS = {
  AN: "À nouveaux",
  VT: "Loyers appelés",
  HA: "Achats",
  BQ: "Banque",
  OD: "Opérations diverses",
} as const;
export type Journal = keyof typeof JOURNALS;

export interface PostingLine {
  account: Account;
  /** On the tenant's auxiliary account (411 only). */
  tenant: boolean;
  debit: number;
  credit: number;
  /** The rent call a tenant line belongs to, for lettering. */
  call_id: string | null;
}

export interface Posting {
  journal: Journal;
  date: string;
  label: string;
  piece_ref: string;
  lines: PostingLine[];
}

/** Facts the events do not carry: the lease's deposit and start, the agency's fee on a payment. */
export interface LeaseFacts {
  deposit_cents: number;
  start_date: string | null;
  /** The owner's management mandate in force on the day paid (fee and VAT rates), if any. */
  mandate?: { fee_rate: number; vat_rate: number } | null;
  /** A cancelled payment's fee, taken back (in cents, VAT included). */
  fee_cents?: number;
}

/** The agency's fee on an amount collected, VAT included, to the cent (honoraires de gestion). */
export const feeOf = (amountCents: number, mandate: { fee_rate: number; vat_rate: number }): number =>
  Math.round(amountCents * mandate.fee_rate * (1 + mandate.vat_rate));

const debit = (account: Account, amount: number, call_id: string | null = null): PostingLine => ({
  account,
  tenant: account === "411000",
  debit: amount,
  credit: 0,
  call_id,
});
const credit = (account: Account, amount: number, call_id: string | null = null): PostingLine => ({
  account,
  tenant: account === "411000",
  debit: 0,
  credit: amount,
  call_id,
});
/** Zero lines say nothing to an accountant: left out. */
const nonZero = (lines: PostingLine[]) => lines.filter((l) => l.debit !== 0 || l.credit !== 0);
const posting = (p: Posting): Posting | null => {
  const lines = nonZero(p.lines);
  return lines.length ? { ...p, lines } : null;
};

const monthLabel = (periodStart: string) => {
  const [y, m] = periodStart.split("-");
  const months = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split(
    " ",
  );
  return `${months[Number(m) - 1]} ${y}`;
};

export type MoneyEvent =
  | AccountEvent
  | DepositEvent
  | { type: "LeaseActivated"; data: { lease_id: string; effective_date: string } };

/** A co-ownership provision the owner paid to the syndic (SyndicPaymentRecorded): the owner's charge. */
export function syndicPosting(paid: { paid_on: string; amount: number }): Posting | null {
  return posting({
    journal: "BQ",
    date: paid.paid_on,
    label: "Provision de charges de copropriété versée au syndic",
    piece_ref: `SY${paid.paid_on.replaceAll("-", "")}`,
    lines: [debit("614100", cents(paid.amount)), credit("512000", cents(paid.amount))],
  });
}

/** The piece reference of an expense's entries (FX, AX for its reversal): its id's first 12 hex digits. */
export const expensePieceOf = (expenseId: string) => expenseId.replaceAll("-", "").slice(0, 12).toUpperCase();

/** The account each kind of owner expense is charged to (plan comptable général, classe 6). */
export const EXPENSE_ACCOUNTS: Record<ExpenseKind, Account> = {
  MANAGEMENT_FEES: "622600",
  ADMINISTRATION_FEES: "622800",
  INSURANCE: "616000",
  WORKS: "615000",
  UNRECOVERED_CHARGES: "614300",
  PROPERTY_TAX: "635120",
  COOWNERSHIP_PROVISIONS: "614100",
  COOWNERSHIP_REGULARISATION: "614200",
  LOAN_INTEREST: "661100",
};

/**
 * An owner's expense: the supplier's invoice in the purchases journal (D 6xx / C 401) and its
 * payment (D 401 / C 512). The co-ownership regularisation moves no money: the part of last
 * year's provisions the syndic's approved accounts show not deductible (recoverable from the
 * tenant, or not deductible) is moved out of the provisions (D 614800 / C 614200), line 230 of
 * the 2044. A cancellation posts the same lines reversed (contre-passation), dated as the expense
 * so that its year's figures lose it; a closed year's reversal goes to the first open year, like
 * any posting (docs/decisions.md).
 */
export function expensePostings(x: OwnerExpense, cancelled = false): Posting[] {
  const amount = cents(x.amount);
  const on = x.paid_on;
  const cancelledOn = cancelled;
  const piece = `${cancelledOn ? "AX" : "FX"}${expensePieceOf(x.expense_id)}`;
  const label = `${cancelledOn ? "Annulation : " : ""}${x.label}`.slice(0, 200);
  const flip = (lines: PostingLine[]) =>
    cancelledOn ? lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit })) : lines;
  if (x.kind === "COOWNERSHIP_REGULARISATION")
    return [
      posting({
        journal: "OD",
        date: on,
        label,
        piece_ref: piece,
        lines: flip([debit("614800", amount), credit("614200", amount)]),
      }),
    ].filter((p): p is Posting => p !== null);
  return [
    posting({
      journal: "HA",
      date: on,
      label,
      piece_ref: piece,
      lines: flip([debit(EXPENSE_ACCOUNTS[x.kind], amount), credit("401000", amount)]),
    }),
    posting({
      journal: "BQ",
      date: on,
      label: `${cancelledOn ? "Remboursement" : "Règlement"} : ${x.label}`.slice(0, 200),
      piece_ref: piece,
      lines: flip([debit("401000", amount), credit("512000", amount)]),
    }),
  ].filter((p): p is Posting => p !== null);
}

/** A payout to the owner (the mandant): the agency's bank pays the owner what it holds for them. */
export function payoutPosting(on: string, amount: number, payoutRef: string): Posting | null {
  return posting({
    journal: "BQ",
    date: on,
    label: "Reversement au propriétaire (virement SEPA)",
    piece_ref: payoutRef,
    lines: [debit("467000", cents(amount)), credit("512000", cents(amount))],
  });
}

/** The posting of one money event, dated `on` when the event has no date of its own. */
export function postingOf(event: MoneyEvent, facts: LeaseFacts, on: string): Posting | null {
  switch (event.type) {
    case "OpeningBalanceRecorded": {
      // What the tenant owed when the lease was taken over: an opening entry (à nouveau), lettered
      // with the payments that settle it.
      const d = event.data;
      return posting({
        journal: "AN",
        date: d.on,
        label: "Solde du locataire à la reprise du bail",
        piece_ref: `RB${d.on.replaceAll("-", "")}`,
        lines: [debit("411000", cents(d.amount), d.call_id), credit("890000", cents(d.amount))],
      });
    }
    case "RentCallIssued": {
      const d = event.data;
      return posting({
        journal: "VT",
        date: d.due_date,
        label: `Appel de loyer ${monthLabel(d.period_start)}`,
        piece_ref: `AL${d.period_start.slice(0, 7).replace("-", "")}`,
        lines: [
          debit("411000", cents(d.rent_amount) + cents(d.charges_amount), d.call_id),
          credit("706000", cents(d.rent_amount)),
          credit("708000", cents(d.charges_amount)),
        ],
      });
    }
    case "PaymentRecorded": {
      const d = event.data;
      return posting({
        journal: "BQ",
        date: d.paid_on,
        label: "Règlement du locataire",
        piece_ref: d.reference?.slice(0, 40) || `RG${d.paid_on.replaceAll("-", "")}`,
        lines: [
          debit("512000", cents(d.amount)),
          ...d.allocations.map((a) => credit("411000", cents(a.amount), a.call_id)),
          credit("411000", cents(d.credit)),
          // Under a management mandate the agency keeps its fee from what it collects.
          debit("622600", facts.mandate ? feeOf(cents(d.amount), facts.mandate) : 0),
          credit("512000", facts.mandate ? feeOf(cents(d.amount), facts.mandate) : 0),
        ],
      });
    }
    case "PaymentCancelled": {
      const d = event.data;
      const reversed =
        d.reversed_allocations.reduce((s, a) => s + cents(a.amount), 0) + cents(d.reversed_credit);
      return posting({
        journal: "BQ",
        date: on,
        label: "Annulation d'un règlement",
        piece_ref: `AN${on.replaceAll("-", "")}`,
        lines: [
          credit("512000", reversed),
          ...d.reversed_allocations.map((a) => debit("411000", cents(a.amount), a.call_id)),
          debit("411000", cents(d.reversed_credit)),
          // The fee kept on the payment is given back with it.
          debit("512000", facts.fee_cents ?? 0),
          credit("622600", facts.fee_cents ?? 0),
        ],
      });
    }
    case "LeaseActivated": {
      // The deposit has no event of its own (docs/accounting.md): received when the lease is
      // activated, or at its start for a tenancy that began before (taken over).
      const on = [event.data.effective_date, facts.start_date ?? event.data.effective_date].sort()[0];
      return posting({
        journal: "BQ",
        date: on,
        label: "Dépôt de garantie reçu",
        piece_ref: `DG${on.replaceAll("-", "")}`,
        lines: [debit("512000", facts.deposit_cents), credit("165000", facts.deposit_cents)],
      });
    }
    case "LeaseDepositReturned": {
      const d = event.data;
      const deducted = d.deductions.reduce((s, x) => s + cents(x.amount), 0);
      return posting({
        journal: "OD",
        date: d.returned_on,
        label: "Restitution du dépôt de garantie",
        piece_ref: `RD${d.returned_on.replaceAll("-", "")}`,
        lines: [
          debit("165000", cents(d.returned_amount) + deducted),
          credit("512000", cents(d.returned_amount)),
          // An unpaid rent is settled from the deposit; a repair is the lessor's income against its cost.
          ...d.deductions.map((x) =>
            x.kind === "UNPAID_RENT"
              ? credit("411000", cents(x.amount), x.rent_call_id)
              : credit("758000", cents(x.amount)),
          ),
          // The late penalty (art. 22 al. 7) is owed to the tenant: a charge, on the tenant's account.
          debit("671000", cents(d.late_penalty)),
          credit("411000", cents(d.late_penalty)),
        ],
      });
    }
    case "LeaseDepositBalanceSettled": {
      const d = event.data;
      return posting({
        journal: "OD",
        date: d.settled_on,
        label: "Solde du dépôt de garantie (arrêté des comptes de l'immeuble)",
        piece_ref: `SD${d.settled_on.replaceAll("-", "")}`,
        lines: [
          debit("165000", cents(d.balance_returned) + cents(d.charges_deducted)),
          credit("512000", cents(d.balance_returned)),
          credit("708000", cents(d.charges_deducted)),
          debit("671000", cents(d.late_penalty)),
          credit("411000", cents(d.late_penalty)),
        ],
      });
    }
    case "ReceiptIssued":
    case "RentReminderSent":
      return null;
  }
}

export const isBalanced = (p: Posting): boolean => p.lines.reduce((s, l) => s + l.debit - l.credit, 0) === 0;
