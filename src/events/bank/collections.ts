import { allEventTypes } from "../../platform/decider.ts";
/**
 * SEPA Direct Debit collections (docs/bank.md, "SEPA collections"): the batches of a creditor bank
 * account, on its stream `sepa_collections-<account id>`. One stream per account is what makes a
 * call collected once: the decider sees every batch of the account and the calls they hold. A
 * batch carries every fact its pain.008 file needs, so the file is the same on every replay.
 */
export const sepaCollectionsStream = (accountId: string) => `sepa_collections-${accountId.toLowerCase()}`;

/** The file's message id (GrpHdr/MsgId, 35 characters at most): the batch id's 32 hex digits. */
export const messageIdOf = (collectionId: string) => collectionId.replace(/-/g, "").toUpperCase();
/** One PmtInf per sequence type: 30 hex digits of the batch and the sequence (35 characters). */
export const paymentInfoIdOf = (collectionId: string, sequence: SequenceType) =>
  `${messageIdOf(collectionId).slice(0, 30)}-${sequence}`;

export const SEQUENCE_TYPES = ["FRST", "RCUR"] as const;
export type SequenceType = (typeof SEQUENCE_TYPES)[number];

export interface Creditor {
  name: string;
  iban: string;
  bic: string | null;
  /** The SEPA creditor identifier (ICS). */
  creditor_id: string;
}

export interface CollectionTransaction {
  /** The transaction's id in the file (PmtId/EndToEndId): the call's payment reference. */
  end_to_end_id: string;
  rent_call_id: string;
  lease_id: string;
  payment_reference: string;
  mandate_id: string;
  rum: string;
  mandate_signed_on: string;
  sequence: SequenceType;
  amount: number;
  /** The payment the debit records on the lease's account (derived from batch and call). */
  payment_id: string;
}

/** A call a batch did not take although it was open (its pre-notification came too late). */
export interface CollectionLeftOut {
  rent_call_id: string;
  lease_id: string;
  reason: "PRENOTIFICATION_LATE";
  /** The rule's verdict, in words, with its source (EPC SDD Core rulebook). */
  message: string;
  /** When the pre-notification reached the tenant (null: it did not). */
  notified_on: string | null;
}

export interface CollectionRejection {
  end_to_end_id: string;
  rent_call_id: string;
  lease_id: string;
  payment_id: string;
  /** ISO 20022 status reason (AC04, AM04, MD06, MS02...). */
  reason_code: string;
}

export type CollectionEvent =
  | {
      type: "SepaCollectionCreated";
      data: {
        collection_id: string;
        bank_account_id: string;
        due_on: string;
        /** When the file was made (GrpHdr/CreDtTm). */
        created_at: string;
        creditor: Creditor;
        transactions: CollectionTransaction[];
        /** Open calls left out (absent from batches made before pre-notification was checked). */
        left_out?: CollectionLeftOut[];
      };
    }
  | {
      /**
       * Transactions a pain.002 status report rejects (or a bank returns): their payments are
       * cancelled with the reason, the calls are due again, no fee is charged to the tenant
       * (loi n° 89-462 du 6 juillet 1989, art. 4 p).
       */
      type: "SepaCollectionRejected";
      data: {
        collection_id: string;
        bank_account_id: string;
        /** The status report's own message id (GrpHdr/MsgId). */
        report_id: string;
        rejections: CollectionRejection[];
      };
    };

export const collectionEventTypes = allEventTypes<CollectionEvent["type"]>()([
  "SepaCollectionCreated",
  "SepaCollectionRejected",
]);

export interface CollectionState {
  due_on: string;
  transactions: CollectionTransaction[];
  /** Rejected transactions by end-to-end id, with their reason. */
  rejected: Record<string, string>;
}

export interface Collections {
  batches: Record<string, CollectionState>;
  /** Calls being collected (not rejected), with their batch. */
  collecting: Record<string, string>;
  /** Mandates some batch of this account used (their next collection is RCUR). */
  used_mandates: Record<string, true>;
  /** Calls a reject says not to present again with that mandate (`<call> <mandate>`), with the reason. */
  refused: Record<string, string>;
}

export const emptyCollections = (): Collections => ({
  batches: {},
  collecting: {},
  used_mandates: {},
  refused: {},
});

/**
 * A reject that may be presented again with the same mandate: AM04 (insufficient funds). Any other
 * reason (AC04 account closed, MD01 no mandate, MS02 refused by the payer...) would fail again.
 */
export const REPRESENTABLE_REASONS = new Set(["AM04"]);
export const refusedKey = (callId: string, mandateId: string) => `${callId} ${mandateId}`;

export function evolveCollections(state: Collections, event: CollectionEvent): Collections {
  switch (event.type) {
    case "SepaCollectionCreated": {
      const d = event.data;
      const collecting = { ...state.collecting };
      const used_mandates = { ...state.used_mandates };
      for (const t of d.transactions) {
        collecting[t.rent_call_id] = d.collection_id;
        used_mandates[t.mandate_id] = true;
      }
      return {
        ...state,
        batches: {
          ...state.batches,
          [d.collection_id]: { due_on: d.due_on, transactions: d.transactions, rejected: {} },
        },
        collecting,
        used_mandates,
      };
    }
    case "SepaCollectionRejected": {
      const d = event.data;
      const batch = state.batches[d.collection_id];
      if (!batch) return state;
      const rejected = { ...batch.rejected };
      const collecting = { ...state.collecting };
      const refused = { ...state.refused };
      for (const r of d.rejections) {
        rejected[r.end_to_end_id] = r.reason_code;
        if (collecting[r.rent_call_id] === d.collection_id) delete collecting[r.rent_call_id];
        const t = batch.transactions.find((x) => x.end_to_end_id === r.end_to_end_id);
        if (t && !REPRESENTABLE_REASONS.has(r.reason_code))
          refused[refusedKey(t.rent_call_id, t.mandate_id)] = r.reason_code;
      }
      return {
        ...state,
        batches: { ...state.batches, [d.collection_id]: { ...batch, rejected } },
        collecting,
        refused,
      };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
