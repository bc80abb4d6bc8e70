import {
  type BankLineData,
  emptyLedger,
  evolveLedger,
  type Ledger,
  type LedgerEvent,
  type LedgerLine,
  type LineMatch,
  type ParsedLine,
  type StatementFormat,
} from "../../events/bank/index.ts";
import { cents } from "../../law/money.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import type { CallToMatch } from "../../queries/rentCycle.ts";
import { matcher } from "./matching.ts";

/**
 * The ledger of a bank account (stream `bank_ledger-<account>`, src/events/bank): imports add only
 * lines it does not hold, sure matches are decided with them; a person matches, unmatches or sets
 * aside what waits in the queue. Only this decider refuses.
 */
export type LedgerCommand =
  | {
      type: "ImportStatement";
      bank_account_id: string;
      statement_id: string;
      format: StatementFormat;
      lines: readonly ParsedLine[];
      /** The open calls of the tenant (facts from the rent cycle's read model). */
      calls: readonly CallToMatch[];
    }
  | {
      type: "MatchLine";
      bank_account_id: string;
      line_id: string;
      /** Each part with the lease of its call (looked up by the route: an unknown call is a 400). */
      matches: readonly { rent_call_id: string; lease_id: string; amount: number }[];
    }
  | { type: "UnmatchLine"; bank_account_id: string; line_id: string; reason: string }
  | { type: "IgnoreLine"; bank_account_id: string; line_id: string }
  | {
      type: "SettleDebitReturn";
      bank_account_id: string;
      line_id: string;
      /** The collection transaction the route found by the line's end-to-end id and amount. */
      collection_id: string;
      end_to_end_id: string;
    };

const squeeze = (s: string) => s.toUpperCase().replace(/\s+/g, " ").trim();

/**
 * A line's identity on its account: the bank's own reference of the entry when it gives one, else
 * its date, amount, label and rank among the lines of the file alike. The same or an overlapping
 * statement names the same lines again, so none is added twice.
 */
export function lineIdentities(accountId: string, lines: readonly ParsedLine[]): string[] {
  const seen = new Map<string, number>();
  return lines.map((l) => {
    if (l.entry_ref) return deterministicUuid("bank_line", accountId, "ref", l.entry_ref);
    const key = `${l.booked_on}|${cents(l.amount)}|${squeeze(l.label)}`;
    const rank = (seen.get(key) ?? 0) + 1;
    seen.set(key, rank);
    return deterministicUuid("bank_line", accountId, "hash", key, String(rank));
  });
}

/** The payment a part of a match records: the same on a retry, another on the next match. */
const paymentIdOf = (lineId: string, round: number, callId: string) =>
  deterministicUuid("bank_payment", lineId, String(round), callId);

/**
 * The matched credit an R-transaction returns: the one its reference names (the original
 * end-to-end id or the bank's entry reference), else the oldest of the same payer and amount.
 */
function originalOf(line: ParsedLine, candidates: readonly LedgerLine[]): LedgerLine | undefined {
  const amount = -cents(line.amount);
  const open = candidates.filter(
    (l) => l.status === "MATCHED" && !l.returned_by && !l.returns && cents(l.amount) === amount,
  );
  const ref = line.reference?.trim();
  return (
    (ref ? open.find((l) => l.reference?.trim() === ref || l.entry_ref === ref) : undefined) ??
    (line.counterparty_iban ? open.find((l) => l.counterparty_iban === line.counterparty_iban) : undefined)
  );
}

function importStatement(
  c: Extract<LedgerCommand, { type: "ImportStatement" }>,
  ledger: Ledger,
): LedgerEvent[] {
  const ids = lineIdentities(c.bank_account_id, c.lines);
  const decide = matcher(c.calls);
  const fresh: BankLineData[] = [];
  const returns: LedgerEvent[] = [];
  const taken = new Set<string>();
  // Lines of the file matched above, for a return further down the same file.
  const here: LedgerLine[] = [];
  const returned = new Set<string>();
  c.lines.forEach((line, i) => {
    const line_id = ids[i];
    if (ledger.lines[line_id] || taken.has(line_id)) return;
    taken.add(line_id);
    if (line.return_reason && cents(line.amount) < 0) {
      fresh.push({ ...line, line_id, proposals: [], sure: null });
      const original = originalOf(
        line,
        [...Object.values(ledger.lines), ...here].filter((l) => !returned.has(l.line_id)),
      );
      if (!original) return;
      returned.add(original.line_id);
      returns.push({
        type: "BankLineReturned",
        data: {
          bank_account_id: c.bank_account_id,
          line_id,
          original_line_id: original.line_id,
          reason_code: line.return_reason,
          cancelled: original.matches,
        },
      });
      return;
    }
    const { match, proposals } = decide(line);
    if (!match) {
      fresh.push({ ...line, line_id, proposals, sure: null });
      return;
    }
    const matches = [
      {
        rent_call_id: match.rent_call_id,
        lease_id: match.lease_id,
        amount: match.amount,
        payment_id: paymentIdOf(line_id, 1, match.rent_call_id),
      },
    ];
    // In the import's own event: a statement of 10,000 sure matches is one event, not 10,001.
    const sure = { reason: match.reason, matches };
    fresh.push({ ...line, line_id, proposals, sure });
    here.push({
      ...line,
      line_id,
      proposals,
      sure,
      status: "MATCHED",
      matches,
      rounds: 1,
      returned_by: null,
      returns: null,
    });
  });
  return [
    {
      type: "BankStatementImported",
      data: {
        bank_account_id: c.bank_account_id,
        statement_id: c.statement_id,
        format: c.format,
        line_count: c.lines.length,
        lines: fresh,
      },
    },
    ...returns,
  ];
}

function lineOf(ledger: Ledger, lineId: string) {
  const line = ledger.lines[lineId];
  if (!line) throw notFound("Bank line", lineId);
  return line;
}

function matchLine(c: Extract<LedgerCommand, { type: "MatchLine" }>, ledger: Ledger): LedgerEvent[] {
  const line = lineOf(ledger, c.line_id);
  if (line.status === "MATCHED")
    throw conflict(`Bank line ${c.line_id} is already matched: unmatch it first`);
  if (cents(line.amount) <= 0) throw conflict(`Bank line ${c.line_id} is a debit: only a credit pays rent`);
  const details = c.matches.flatMap((m, i) =>
    cents(m.amount) > 0 ? [] : [{ field: `matches.${i}.amount`, message: "Must be > 0" }],
  );
  const calls = new Set(c.matches.map((m) => m.rent_call_id));
  if (calls.size !== c.matches.length) details.push({ field: "matches", message: "A call may appear once" });
  const sum = c.matches.reduce((s, m) => s + cents(m.amount), 0);
  if (sum !== cents(line.amount))
    details.push({ field: "matches", message: `The amounts must sum to the line's ${line.amount}` });
  if (details.length > 0) throw validationError("Invalid match", details);
  const round = line.rounds + 1;
  const matches: LineMatch[] = c.matches.map((m) => ({
    rent_call_id: m.rent_call_id,
    lease_id: m.lease_id,
    amount: m.amount,
    payment_id: paymentIdOf(c.line_id, round, m.rent_call_id),
  }));
  return [
    {
      type: "BankLineMatched",
      data: { bank_account_id: c.bank_account_id, line_id: c.line_id, reason: "MANUAL", matches },
    },
  ];
}

function unmatchLine(c: Extract<LedgerCommand, { type: "UnmatchLine" }>, ledger: Ledger): LedgerEvent[] {
  const line = lineOf(ledger, c.line_id);
  if (line.status !== "MATCHED") throw conflict(`Bank line ${c.line_id} is ${line.status}, not matched`);
  if (line.returned_by)
    throw conflict(`Bank line ${c.line_id} was returned: its payments are already cancelled`);
  if (line.returns) throw conflict(`Bank line ${c.line_id} is a return: it stands for the credit it returns`);
  return [
    {
      type: "BankLineUnmatched",
      data: {
        bank_account_id: c.bank_account_id,
        line_id: c.line_id,
        reason: c.reason,
        cancelled: line.matches,
      },
    },
  ];
}

function ignoreLine(c: Extract<LedgerCommand, { type: "IgnoreLine" }>, ledger: Ledger): LedgerEvent[] {
  const line = lineOf(ledger, c.line_id);
  if (line.status === "MATCHED") throw conflict(`Bank line ${c.line_id} is matched: unmatch it first`);
  if (line.status === "IGNORED") return [];
  return [{ type: "BankLineIgnored", data: { bank_account_id: c.bank_account_id, line_id: c.line_id } }];
}

function settleDebitReturn(
  c: Extract<LedgerCommand, { type: "SettleDebitReturn" }>,
  ledger: Ledger,
): LedgerEvent[] {
  const line = lineOf(ledger, c.line_id);
  if (line.returns === c.collection_id) return [];
  if (!line.return_reason || line.status !== "UNMATCHED")
    throw conflict(`Bank line ${c.line_id} is not a return waiting in the queue`);
  return [
    {
      type: "BankLineDebitReturned",
      data: {
        bank_account_id: c.bank_account_id,
        line_id: c.line_id,
        collection_id: c.collection_id,
        end_to_end_id: c.end_to_end_id,
        reason_code: line.return_reason,
      },
    },
  ];
}

export const ledgerDecider: Decider<Ledger, LedgerCommand, LedgerEvent> = {
  initialState: emptyLedger,
  evolve: evolveLedger,
  decide(command, ledger) {
    switch (command.type) {
      case "ImportStatement":
        return importStatement(command, ledger);
      case "MatchLine":
        return matchLine(command, ledger);
      case "UnmatchLine":
        return unmatchLine(command, ledger);
      case "IgnoreLine":
        return ignoreLine(command, ledger);
      case "SettleDebitReturn":
        return settleDebitReturn(command, ledger);
    }
  },
};
