import type { ParsedLine } from "../../../events/bank/index.ts";
import { at, listAt, type Node, parseXml, textAt } from "./xml.ts";

/**
 * ISO 20022 camt.053 (statement) and camt.054 (debit/credit notification), any version from 001.02
 * on: the entries (Ntry) of every statement or notification. An entry with several transactions
 * (TxDtls, each with its own amount) gives a line per transaction; a single one gives the entry.
 */

const amountOf = (node: unknown): number | null => {
  const v = textAt(node);
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/** A party's name and account, camt.053.001.02 (Dbtr/Nm) or 001.08 on (Dbtr/Pty/Nm). */
const partyName = (parties: unknown, role: string): string | null =>
  textAt(parties, role, "Nm") ?? textAt(parties, role, "Pty", "Nm");

const partyIban = (parties: unknown, role: string): string | null =>
  textAt(parties, `${role}Acct`, "Id", "IBAN");

function transactionLine(entry: Node, tx: Node | null, credit: boolean, amount: number): ParsedLine {
  const parties = tx ? at(tx, "RltdPties") : undefined;
  // On a credit the counterparty is the debtor (who paid), on a debit the creditor.
  const role = credit ? "Dbtr" : "Cdtr";
  const unstructured = tx ? listAt(tx, "RmtInf", "Ustrd").map((u) => textAt(u) ?? "") : [];
  const structured = tx ? (textAt(tx, "RmtInf", "Strd", "CdtrRefInf", "Ref") ?? null) : null;
  const endToEnd = tx ? textAt(tx, "Refs", "EndToEndId") : null;
  const reference =
    structured ??
    (endToEnd && endToEnd !== "NOTPROVIDED" ? endToEnd : null) ??
    (unstructured.join(" ") || null);
  const label = [textAt(entry, "AddtlNtryInf"), tx ? textAt(tx, "AddtlTxInf") : null, ...unstructured]
    .filter(Boolean)
    .join(" ")
    .trim();
  const entryRef = textAt(entry, "AcctSvcrRef") ?? textAt(entry, "NtryRef");
  const txRef = tx ? (textAt(tx, "Refs", "AcctSvcrRef") ?? textAt(tx, "Refs", "TxId")) : null;
  return {
    booked_on: (textAt(entry, "BookgDt", "Dt") ?? textAt(entry, "BookgDt", "DtTm") ?? "").slice(0, 10),
    amount: credit ? amount : -amount,
    label: label || (reference ?? ""),
    counterparty_name: partyName(parties, role),
    counterparty_iban: partyIban(parties, role),
    reference,
    entry_ref: txRef && entryRef ? `${entryRef}/${txRef}` : (entryRef ?? txRef),
    return_reason: tx ? (textAt(tx, "RtrInf", "Rsn", "Cd") ?? null) : null,
  };
}

function entryLines(entry: Node): ParsedLine[] {
  // A booked entry only: pending (PDNG) or information entries move no money yet.
  const status = textAt(entry, "Sts") ?? textAt(entry, "Sts", "Cd");
  if (status && status !== "BOOK") return [];
  const indicator = textAt(entry, "CdtDbtInd");
  const reversal = textAt(entry, "RvslInd") === "true";
  const credit = (indicator === "CRDT") !== reversal;
  const total = amountOf(at(entry, "Amt"));
  if (total === null || indicator === null) throw new Error("An entry has no amount or no CdtDbtInd");
  const txs = listAt(entry, "NtryDtls", "TxDtls");
  const own = txs.map((tx) => amountOf(at(tx, "Amt")) ?? amountOf(at(tx, "AmtDtls", "TxAmt", "Amt")));
  if (txs.length > 1 && own.every((a) => a !== null))
    return txs.map((tx, i) => transactionLine(entry, tx, credit, own[i] as number));
  return [transactionLine(entry, txs[0] ?? null, credit, total)];
}

/** The lines of a camt.053 or camt.054 document; throws when it is neither. */
export function parseCamt(text: string): { format: "CAMT053" | "CAMT054"; lines: ParsedLine[] } {
  const doc = parseXml(text);
  const statements = listAt(doc, "Document", "BkToCstmrStmt", "Stmt");
  if (statements.length > 0)
    return { format: "CAMT053", lines: statements.flatMap((s) => listAt(s, "Ntry").flatMap(entryLines)) };
  const notes = listAt(doc, "Document", "BkToCstmrDbtCdtNtfctn", "Ntfctn");
  if (notes.length > 0)
    return { format: "CAMT054", lines: notes.flatMap((n) => listAt(n, "Ntry").flatMap(entryLines)) };
  throw new Error(
    "Not a camt.053 or camt.054 document (no BkToCstmrStmt/Stmt nor BkToCstmrDbtCdtNtfctn/Ntfctn)",
  );
}
