import { electronicFormatIBAN, isValidBIC, isValidIBAN } from "ibantools";
import { z } from "zod";
import { cents } from "../../law/money.ts";
import { text, uuid } from "../../platform/http/schemas.ts";
import { defineResource, type ResourceEvent } from "../../platform/resource/resource.ts";
import { creditorIdentifierProblem } from "../../platform/sepaIdentifiers.ts";

/**
 * Money in from the bank (docs/bank.md): bank accounts (a resource, stream `bank_account-<id>`)
 * and each account's ledger of statement lines (stream `bank_ledger-<account id>`): imports, matches,
 * undos and lines set aside. One ledger stream per account is what makes a line unique: the
 * decider sees every line already imported, so an overlapping statement adds none twice.
 */

// IBAN and BIC checked by ibantools (ISO 13616 with each country's BBAN format, ISO 9362).
const ibanOf = z
  .string()
  .max(100, "Must be an IBAN")
  .overwrite((v) => electronicFormatIBAN(v) ?? v)
  .refine((v) => isValidIBAN(v), "Invalid IBAN (ISO 13616: country format and check digits)");
const bicOf = z
  .string()
  .max(100, "Must be a BIC")
  .overwrite((v) => v.replace(/\s+/g, "").toUpperCase())
  .refine((v) => isValidBIC(v), "Invalid BIC (ISO 9362: 8 or 11 characters)");
const creditorIdOf = z
  .string()
  .max(40, "Must be a SEPA creditor identifier")
  .overwrite((v) => v.replace(/\s+/g, "").toUpperCase())
  .superRefine((v, ctx) => {
    const problem = creditorIdentifierProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** Which columns of a bank's CSV export hold what (1-based or header names), saved per account. */
export const csvMapping = z
  .strictObject({
    delimiter: z.enum([";", ",", "\t"]).optional(),
    date: z.string().min(1).max(100),
    label: z.string().min(1).max(100),
    amount: z.string().min(1).max(100).optional(),
    debit: z.string().min(1).max(100).optional(),
    credit: z.string().min(1).max(100).optional(),
    reference: z.string().min(1).max(100).optional(),
    counterparty_name: z.string().min(1).max(100).optional(),
    counterparty_iban: z.string().min(1).max(100).optional(),
    date_format: z.enum(["dd/mm/yyyy", "yyyy-mm-dd"]).optional(),
    decimal: z.enum([",", "."]).optional(),
  })
  .refine((m) => m.amount || (m.debit && m.credit), "Needs amount, or both debit and credit columns")
  .meta({ id: "BankCsvMapping", description: "Columns of a CSV export: header names (or 1-based numbers)" });
export type CsvMapping = z.output<typeof csvMapping>;

export const bankAccountResource = defineResource({
  name: "bank_account",
  stream: (id) => `bank_account-${id}`,
  label: "BankAccount",
  table: "bank_accounts",
  path: "/api/bank-accounts",
  tag: "Bank",
  access: { read: "FinanceRead", write: "FinanceWrite", delete: "FinanceDelete" },
  fields: {
    label: text(200).min(1, "Must not be empty"),
    iban: ibanOf,
    bic: bicOf.nullish(),
    owner_id: uuid().nullish(),
    creditor_id: creditorIdOf.nullish().describe("SEPA creditor identifier (ICS in France)"),
    csv_mapping: csvMapping.nullish(),
  },
  events: { created: "BankAccountCreated", updated: "BankAccountUpdated", deleted: "BankAccountDeleted" },
  commands: { create: "CreateBankAccount", update: "UpdateBankAccount", delete: "DeleteBankAccount" },
  invalidBodyMessage: "Invalid bank account data",
  history: true,
});
export type BankAccountEvent = ResourceEvent<typeof bankAccountResource>;

export const bankLedgerStream = (accountId: string) => `bank_ledger-${accountId.toLowerCase()}`;

export const STATEMENT_FORMATS = ["CAMT053", "CAMT054", "OFX", "CSV"] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];
export const LINE_STATUSES = ["UNMATCHED", "MATCHED", "IGNORED"] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];
export const MATCH_REASONS = ["PAYMENT_REFERENCE", "IBAN_AMOUNT", "NAME_AMOUNT", "MANUAL"] as const;
export type MatchReason = (typeof MATCH_REASONS)[number];

/** A line as a statement gives it (amount in euros: positive a credit, negative a debit). */
export interface ParsedLine {
  booked_on: string;
  amount: number;
  label: string;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  reference: string | null;
  /** The bank's own id of the entry (camt AcctSvcrRef or NtryRef, OFX FITID), when it gives one. */
  entry_ref: string | null;
  /** An R-transaction (a SEPA return or reject): its ISO reason code (AC04, AM04, MD06...). */
  return_reason: string | null;
}

export interface Proposal {
  rent_call_id: string;
  amount: number;
  reason: MatchReason;
}

export interface BankLineData extends ParsedLine {
  line_id: string;
  proposals: Proposal[];
  /** The sure match decided with the import (reference, or IBAN and amount), if any. */
  sure: { reason: MatchReason; matches: LineMatch[] } | null;
}

export interface LineMatch {
  rent_call_id: string;
  lease_id: string;
  amount: number;
  /** The payment this part records on the lease's account (derived: a retry names the same). */
  payment_id: string;
}

export type LedgerEvent =
  | {
      type: "BankStatementImported";
      data: {
        bank_account_id: string;
        statement_id: string;
        format: StatementFormat;
        /** Lines in the file, those already imported included. */
        line_count: number;
        /** The lines new to the account. */
        lines: BankLineData[];
      };
    }
  | {
      type: "BankLineMatched";
      data: { bank_account_id: string; line_id: string; reason: MatchReason; matches: LineMatch[] };
    }
  | {
      type: "BankLineUnmatched";
      data: { bank_account_id: string; line_id: string; reason: string; cancelled: LineMatch[] };
    }
  | { type: "BankLineIgnored"; data: { bank_account_id: string; line_id: string } }
  | {
      /**
       * An R-transaction (return, reject, refund) names a matched credit: its payments are
       * cancelled with the ISO reason, the calls are due again, no fee is charged (loi n° 89-462
       * art. 4 p). The return line counts as matched (it is accounted for), the original stays matched.
       */
      type: "BankLineReturned";
      data: {
        bank_account_id: string;
        line_id: string;
        original_line_id: string;
        reason_code: string;
        cancelled: LineMatch[];
      };
    }
  | {
      /**
       * An R-transaction of a SEPA direct debit this account collected (a refund, MD06, or a return
       * after settlement), found by its end-to-end id: the collection's payment is cancelled on its
       * own stream (SepaCollectionRejected); the line is accounted for, as a return is.
       */
      type: "BankLineDebitReturned";
      data: {
        bank_account_id: string;
        line_id: string;
        collection_id: string;
        end_to_end_id: string;
        reason_code: string;
      };
    };

export const ledgerEventTypes = [
  "BankStatementImported",
  "BankLineMatched",
  "BankLineUnmatched",
  "BankLineIgnored",
  "BankLineReturned",
  "BankLineDebitReturned",
] as const satisfies readonly LedgerEvent["type"][];

export interface LedgerLine extends BankLineData {
  status: LineStatus;
  matches: LineMatch[];
  /** How many times it was matched: the round names the payments of the next match. */
  rounds: number;
  /**
   * The R-transaction that returned it (its payments cancelled), or what a return line returns: a
   * credit line, or the collection batch of a returned direct debit.
   */
  returned_by: string | null;
  returns: string | null;
}

export interface Ledger {
  lines: Record<string, LedgerLine>;
  statements: number;
}

export const emptyLedger = (): Ledger => ({ lines: {}, statements: 0 });

const withLine = (ledger: Ledger, id: string, change: (l: LedgerLine) => LedgerLine): Ledger => {
  const line = ledger.lines[id];
  return line ? { ...ledger, lines: { ...ledger.lines, [id]: change(line) } } : ledger;
};

export function evolveLedger(ledger: Ledger, event: LedgerEvent): Ledger {
  switch (event.type) {
    case "BankStatementImported": {
      // Mutated in place: a statement of 10,000 lines copies the map once, not once per line.
      const lines = { ...ledger.lines };
      for (const l of event.data.lines)
        lines[l.line_id] = {
          ...l,
          status: l.sure ? "MATCHED" : "UNMATCHED",
          matches: l.sure?.matches ?? [],
          rounds: l.sure ? 1 : 0,
          returned_by: null,
          returns: null,
        };
      return { lines, statements: ledger.statements + 1 };
    }
    case "BankLineMatched":
      return withLine(ledger, event.data.line_id, (l) => ({
        ...l,
        status: "MATCHED",
        matches: event.data.matches,
        rounds: l.rounds + 1,
      }));
    case "BankLineUnmatched":
      return withLine(ledger, event.data.line_id, (l) => ({ ...l, status: "UNMATCHED", matches: [] }));
    case "BankLineIgnored":
      return withLine(ledger, event.data.line_id, (l) => ({ ...l, status: "IGNORED" }));
    case "BankLineReturned": {
      const { line_id, original_line_id } = event.data;
      const marked = withLine(ledger, original_line_id, (l) => ({ ...l, returned_by: line_id }));
      return withLine(marked, line_id, (l) => ({ ...l, status: "MATCHED", returns: original_line_id }));
    }
    case "BankLineDebitReturned":
      // What it returns is a collection's debit, named by the batch.
      return withLine(ledger, event.data.line_id, (l) => ({
        ...l,
        status: "MATCHED",
        returns: event.data.collection_id,
      }));
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

const partsCents = (l: LedgerLine) => l.matches.reduce((t, m) => t + cents(m.amount), 0);

/** What the matched credits of a ledger add up to, in cents (returned ones included). */
export const matchedCents = (ledger: Ledger): number =>
  Object.values(ledger.lines)
    .filter((l) => l.status === "MATCHED")
    .reduce((s, l) => s + partsCents(l), 0);

/** What returns took back of matched credits, in cents. */
export const returnedCents = (ledger: Ledger): number =>
  Object.values(ledger.lines)
    .filter((l) => l.status === "MATCHED" && l.returned_by)
    .reduce((s, l) => s + partsCents(l), 0);
