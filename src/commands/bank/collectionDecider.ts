import {
  type CollectionEvent,
  type CollectionLeftOut,
  type CollectionRejection,
  type Collections,
  type CollectionTransaction,
  type Creditor,
  emptyCollections,
  evolveCollections,
  messageIdOf,
  paymentInfoIdOf,
  refusedKey,
} from "../../events/bank/collections.ts";
import { cents, toEuros } from "../../law/money.ts";
import { earliestCollectionDate } from "../../law/sepaCalendar.ts";
import { prenotificationVerdict } from "../../law/sepaPrenotification.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound, validationError } from "../../platform/errors.ts";
import { deterministicUuid } from "../../platform/ids.ts";

/**
 * SEPA collection batches of a creditor account (docs/bank.md, "SEPA collections"), decided on the
 * account's stream `sepa_collections-<account>`: a batch takes every call it is given that no batch
 * of the account is collecting, once; a status report rejects transactions of a batch. Only this
 * decider refuses.
 */

/** An open call of a lease paid by direct debit, with the active mandate that pays it (facts). */
export interface CollectionCandidate {
  rent_call_id: string;
  lease_id: string;
  payment_reference: string;
  due_date: string;
  open_amount: number;
  mandate: {
    mandate_id: string;
    rum: string;
    signed_on: string;
    /** Used by a collection already (the read model's last use): RCUR. */
    used: boolean;
  };
  /**
   * The legal day the call's pre-notification (its avis d'échéance) reached the tenant, null when it
   * did not (docs/bank.md, "Pre-notification"): the avis email's delivery, or the call's issue when
   * the avis emails are off.
   */
  notified_on: string | null;
  /** A shorter pre-notification delay the lease agreed (calendar days), null for the rulebook's 14. */
  prenotification_days: number | null;
}

/** What a pain.002 status report says (src/commands/bank/parsers/pain002.ts). */
export interface StatusReport {
  message_id: string;
  original_message_id: string;
  /** Status of the whole file (RJCT rejects every transaction). */
  group_status: string | null;
  group_reason: string | null;
  payments: {
    original_id: string | null;
    status: string | null;
    reason: string | null;
    transactions: { end_to_end_id: string; status: string | null; reason: string | null }[];
  }[];
}

export type CollectionCommand =
  | {
      type: "CreateCollection";
      collection_id: string;
      bank_account_id: string;
      due_on: string;
      today: string;
      now: string;
      /** The account as creditor (null creditor_id: no ICS, no collection). */
      creditor: Omit<Creditor, "creditor_id"> & { creditor_id: string | null };
      candidates: readonly CollectionCandidate[];
    }
  | { type: "ReportStatus"; collection_id: string; bank_account_id: string; report: StatusReport }
  /** An R-transaction in a statement (a refund, a return after settlement) naming a debit of the batch. */
  | {
      type: "ReturnDebit";
      collection_id: string;
      bank_account_id: string;
      end_to_end_id: string;
      reason_code: string;
      /** The statement line that brought it. */
      line_id: string;
    };

function createCollection(
  c: Extract<CollectionCommand, { type: "CreateCollection" }>,
  state: Collections,
): CollectionEvent[] {
  const { creditor_id } = c.creditor;
  if (!creditor_id)
    throw conflict(
      `Bank account ${c.bank_account_id} has no creditor identifier (ICS): set its creditor_id first`,
    );
  const earliest = earliestCollectionDate(c.today);
  if (c.due_on < earliest)
    throw validationError("Invalid collection", [
      {
        field: "due_on",
        message: `Must be on or after ${earliest}: the file reaches the bank one TARGET2 business day before the due date (EPC SDD Core rulebook, D-1)`,
      },
    ]);
  const same = Object.entries(state.batches).find(([, b]) => b.due_on === c.due_on);
  if (same) throw conflict(`Collection ${same[0]} already collects this account on ${c.due_on}`);
  const open = c.candidates.filter(
    (k) =>
      !state.collecting[k.rent_call_id] &&
      !state.refused[refusedKey(k.rent_call_id, k.mandate.mandate_id)] &&
      k.due_date <= c.due_on &&
      cents(k.open_amount) > 0,
  );
  // A call whose pre-notification did not reach the tenant in time is left out, with its reason.
  const left_out: CollectionLeftOut[] = [];
  const taken = open.filter((k) => {
    const v = prenotificationVerdict({
      notified_on: k.notified_on,
      debit_on: c.due_on,
      agreed_days: k.prenotification_days,
    });
    if (v.status === "PASS") return true;
    left_out.push({
      rent_call_id: k.rent_call_id,
      lease_id: k.lease_id,
      reason: "PRENOTIFICATION_LATE",
      message: `${v.message} (${v.legal_reference})`,
      notified_on: k.notified_on,
    });
    return false;
  });
  const transactions: CollectionTransaction[] = taken.map((k) => ({
    end_to_end_id: k.payment_reference,
    rent_call_id: k.rent_call_id,
    lease_id: k.lease_id,
    payment_reference: k.payment_reference,
    mandate_id: k.mandate.mandate_id,
    rum: k.mandate.rum,
    mandate_signed_on: k.mandate.signed_on,
    sequence: k.mandate.used || state.used_mandates[k.mandate.mandate_id] ? "RCUR" : "FRST",
    amount: toEuros(cents(k.open_amount)),
    payment_id: deterministicUuid("sepa_payment", c.collection_id, k.rent_call_id),
  }));
  // Every call of a mandate not used yet is FRST in its first batch: none of them is settled yet.
  if (transactions.length === 0 && left_out.length > 0)
    throw conflict(
      `Nothing to collect on ${c.due_on}: no call's pre-notification reached the tenant in time`,
      left_out.map((l) => ({ field: "due_on", message: `Rent call ${l.rent_call_id}: ${l.message}` })),
    );
  if (transactions.length === 0)
    throw conflict(`Nothing to collect on or before ${c.due_on}: no open call paid by an active mandate`);
  return [
    {
      type: "SepaCollectionCreated",
      data: {
        collection_id: c.collection_id,
        bank_account_id: c.bank_account_id,
        due_on: c.due_on,
        created_at: c.now,
        creditor: { ...c.creditor, creditor_id },
        transactions,
        left_out,
      },
    },
  ];
}

const REJECTED = new Set(["RJCT"]);

function reportStatus(
  c: Extract<CollectionCommand, { type: "ReportStatus" }>,
  state: Collections,
): CollectionEvent[] {
  const batch = state.batches[c.collection_id];
  if (!batch) throw notFound("SEPA collection", c.collection_id);
  const r = c.report;
  const fileError = (message: string) =>
    validationError("Invalid status report", [{ field: "file", message }]);
  if (r.original_message_id !== messageIdOf(c.collection_id))
    throw fileError(
      `The report is about message ${r.original_message_id}, not this collection's ${messageIdOf(c.collection_id)}`,
    );
  const byId = new Map(batch.transactions.map((t) => [t.end_to_end_id, t]));
  const reasons = new Map<string, string>();
  if (r.group_status && REJECTED.has(r.group_status))
    for (const t of batch.transactions) reasons.set(t.end_to_end_id, r.group_reason ?? "NARR");
  for (const p of r.payments) {
    if (p.status && REJECTED.has(p.status) && p.transactions.length === 0)
      for (const t of batch.transactions)
        if (p.original_id === paymentInfoIdOf(c.collection_id, t.sequence))
          reasons.set(t.end_to_end_id, p.reason ?? r.group_reason ?? "NARR");
    for (const t of p.transactions) {
      if (!byId.has(t.end_to_end_id))
        throw fileError(`Transaction ${t.end_to_end_id} is not in this collection`);
      if (t.status && REJECTED.has(t.status))
        reasons.set(t.end_to_end_id, t.reason ?? p.reason ?? r.group_reason ?? "NARR");
    }
  }
  const rejections: CollectionRejection[] = [...reasons]
    .filter(([id]) => !batch.rejected[id])
    .map(([id, reason_code]) => {
      const t = byId.get(id) as CollectionTransaction;
      return {
        end_to_end_id: id,
        rent_call_id: t.rent_call_id,
        lease_id: t.lease_id,
        payment_id: t.payment_id,
        reason_code,
      };
    });
  if (rejections.length === 0) return [];
  return [
    {
      type: "SepaCollectionRejected",
      data: {
        collection_id: c.collection_id,
        bank_account_id: c.bank_account_id,
        report_id: r.message_id,
        rejections,
      },
    },
  ];
}

function returnDebit(
  c: Extract<CollectionCommand, { type: "ReturnDebit" }>,
  state: Collections,
): CollectionEvent[] {
  const batch = state.batches[c.collection_id];
  if (!batch) throw notFound("SEPA collection", c.collection_id);
  const t = batch.transactions.find((x) => x.end_to_end_id === c.end_to_end_id);
  if (!t) throw notFound("SEPA collection transaction", c.end_to_end_id);
  if (batch.rejected[c.end_to_end_id]) return [];
  return [
    {
      type: "SepaCollectionRejected",
      data: {
        collection_id: c.collection_id,
        bank_account_id: c.bank_account_id,
        report_id: c.line_id,
        rejections: [
          {
            end_to_end_id: t.end_to_end_id,
            rent_call_id: t.rent_call_id,
            lease_id: t.lease_id,
            payment_id: t.payment_id,
            reason_code: c.reason_code,
          },
        ],
      },
    },
  ];
}

export const collectionDecider: Decider<Collections, CollectionCommand, CollectionEvent> = {
  initialState: emptyCollections,
  evolve: evolveCollections,
  decide(command, state) {
    switch (command.type) {
      case "CreateCollection":
        return createCollection(command, state);
      case "ReportStatus":
        return reportStatus(command, state);
      case "ReturnDebit":
        return returnDebit(command, state);
    }
  },
};
