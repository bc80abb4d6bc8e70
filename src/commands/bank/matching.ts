import type { MatchReason, ParsedLine, Proposal } from "../../events/bank/index.ts";
import { cents, toEuros } from "../../law/money.ts";
import { creditorReferencesIn } from "../../platform/sepaIdentifiers.ts";
import type { CallToMatch } from "../../queries/rentCycle.ts";

/**
 * Matching a statement's credits to open rent calls (docs/bank.md, "Matching"), in order:
 * 1. the call's payment reference (RF) in the line's reference or label: sure;
 * 2. the payer's IBAN (a lessee of the lease) and the call's exact open amount: sure;
 * 3. a lessee's name in the counterparty or label and the exact open amount: a proposal only.
 * Pure: the calls are facts the route looked up. A call's open amount taken by one line is not
 * offered to the next, so two lines of one statement never pay the same euro twice.
 */

export interface Decision {
  match: { rent_call_id: string; lease_id: string; amount: number; reason: MatchReason } | null;
  proposals: Proposal[];
}

const words = (s: string) =>
  s
    .toUpperCase()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .split(/[^A-Z0-9]+/)
    .filter((w) => w.length >= 3);

export function matcher(calls: readonly CallToMatch[]) {
  const open = new Map(calls.map((c) => [c.call_id, cents(c.open_amount)]));
  const byReference = new Map(calls.map((c) => [c.payment_reference, c]));
  const byIban = new Map<string, CallToMatch[]>();
  for (const c of calls)
    for (const p of c.payers)
      if (p.iban) {
        const list = byIban.get(p.iban) ?? [];
        if (!list.includes(c)) list.push(c);
        byIban.set(p.iban, list);
      }
  const take = (call: CallToMatch, amountCents: number, reason: MatchReason) => {
    open.set(call.call_id, Math.max(0, (open.get(call.call_id) ?? 0) - amountCents));
    return { rent_call_id: call.call_id, lease_id: call.lease_id, amount: toEuros(amountCents), reason };
  };
  const exact = (list: readonly CallToMatch[], amountCents: number) =>
    list.find((c) => open.get(c.call_id) === amountCents && amountCents > 0);

  return (line: ParsedLine): Decision => {
    const amount = cents(line.amount);
    // Debits and returns are not rent paid in: nothing to match.
    if (amount <= 0 || line.return_reason) return { match: null, proposals: [] };
    for (const ref of creditorReferencesIn(`${line.reference ?? ""} ${line.label}`)) {
      const call = byReference.get(ref);
      if (call) return { match: take(call, amount, "PAYMENT_REFERENCE"), proposals: [] };
    }
    const iban = line.counterparty_iban?.replace(/\s+/g, "").toUpperCase();
    const byPayer = iban ? exact(byIban.get(iban) ?? [], amount) : undefined;
    if (byPayer) return { match: take(byPayer, amount, "IBAN_AMOUNT"), proposals: [] };
    const said = new Set(words(`${line.counterparty_name ?? ""} ${line.label}`));
    const proposals = calls
      .filter((c) => open.get(c.call_id) === amount)
      .filter((c) => c.payers.some((p) => words(p.name).some((w) => said.has(w))))
      .slice(0, 5)
      .map((c) => ({ rent_call_id: c.call_id, amount: toEuros(amount), reason: "NAME_AMOUNT" as const }));
    return { match: null, proposals };
  };
}

/** A lessee with no IBAN stored pays with the IBAN of their active mandate on the lease, if any. */
export function withMandateIbans(
  calls: readonly CallToMatch[],
  mandates: ReadonlyMap<string, readonly { lessee_id: string; iban: string }[]>,
): CallToMatch[] {
  return calls.map((c) => {
    const signed = mandates.get(c.lease_id);
    if (!signed) return c;
    const payers = c.payers.map((p) =>
      p.iban ? p : { ...p, iban: signed.find((m) => m.lessee_id === p.lessee_id)?.iban ?? null },
    );
    return { ...c, payers };
  });
}
