import { type CollectionEvent, collectionEventTypes } from "../../events/bank/collections.ts";
import { bankAccountResource, type LedgerEvent, ledgerEventTypes } from "../../events/bank/index.ts";
import { type MandateEvent, mandateEventTypes } from "../../events/bank/mandates.ts";
import type { Sql } from "../../platform/db.ts";
import {
  eventsOf,
  type Projection,
  type Row,
  rowProjection,
  tenantPolicy,
} from "../../platform/projections/projection.ts";
import { resourceProjection } from "../../platform/resource/projection.ts";

/**
 * The bank area's read models (docs/bank.md): `bank_accounts` (the resource kit's) and `bank_lines`,
 * one row per statement line with its status, matches and proposals. A batch folds its events per
 * line in memory and writes each line once: a statement of 10,000 lines is one insert.
 */

const SCHEMA = `
CREATE TABLE bank_lines (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  bank_account_id uuid NOT NULL,
  statement_id uuid NOT NULL,
  seq bigint NOT NULL,
  booked_on date NOT NULL,
  amount numeric NOT NULL,
  label text NOT NULL,
  counterparty_name text,
  counterparty_iban text,
  reference text,
  return_reason text,
  status text NOT NULL,
  matches jsonb NOT NULL,
  proposals jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX bank_lines_account ON bank_lines (tenant_id, bank_account_id, status, booked_on, seq);
${tenantPolicy("bank_lines")}`;

async function writeLines(tx: Sql, inserts: Row[], updates: Row[]) {
  if (inserts.length > 0)
    await tx.query(
      `INSERT INTO bank_lines SELECT * FROM jsonb_populate_recordset(NULL::bank_lines, $1::jsonb) ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(inserts)],
    );
  if (updates.length > 0)
    await tx.query(
      `UPDATE bank_lines b SET status = u.status, matches = u.matches, updated_at = u.updated_at
       FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, status text, matches jsonb, updated_at timestamptz)
       WHERE b.id = u.id`,
      [JSON.stringify(updates)],
    );
}

const bankLinesProjection: Projection = {
  name: "bank_lines",
  version: 1,
  tables: ["bank_lines"],
  schema: SCHEMA,
  handles: ledgerEventTypes,
  async applyBatch(tx, events) {
    const mine = eventsOf<LedgerEvent>(events, ledgerEventTypes);
    if (mine.length === 0) return;
    const inserted = new Map<string, Row>();
    const updated = new Map<string, Row>();
    for (const e of mine) {
      const at = e.metadata.occurred_at;
      if (e.type === "BankStatementImported") {
        e.data.lines.forEach((l, i) => {
          inserted.set(l.line_id, {
            tenant_id: e.metadata.tenant_id,
            id: l.line_id,
            bank_account_id: e.data.bank_account_id,
            statement_id: e.data.statement_id,
            seq: Number(e.stream_revision) * 1_000_000 + i,
            booked_on: l.booked_on,
            amount: l.amount,
            label: l.label,
            counterparty_name: l.counterparty_name,
            counterparty_iban: l.counterparty_iban,
            reference: l.reference,
            return_reason: l.return_reason,
            status: l.sure ? "MATCHED" : "UNMATCHED",
            matches: l.sure?.matches ?? [],
            proposals: l.proposals,
            created_at: at,
            updated_at: at,
          });
        });
        continue;
      }
      // A return line is accounted for: MATCHED, with no rent call of its own. The original keeps its row.
      const change =
        e.type === "BankLineMatched"
          ? { status: "MATCHED", matches: e.data.matches }
          : e.type === "BankLineUnmatched"
            ? { status: "UNMATCHED", matches: [] }
            : e.type === "BankLineReturned" || e.type === "BankLineDebitReturned"
              ? { status: "MATCHED", matches: [] }
              : // Only a line without matches is set aside.
                { status: "IGNORED", matches: [] };
      const id = e.data.line_id;
      const fresh = inserted.get(id);
      if (fresh) Object.assign(fresh, change, { updated_at: at });
      else updated.set(id, { ...change, id, updated_at: at });
    }
    await writeLines(tx, [...inserted.values()], [...updated.values()]);
  },
};

/** `sepa_mandates`: one row per mandate (status and sequence derived on the day by the queries). */
const MANDATE_COLUMNS = [
  "tenant_id",
  "id",
  "lease_id",
  "lessee_id",
  "rum",
  "iban",
  "bic",
  "signed_on",
  "last_used_on",
  "revoked_on",
];
const mandatesProjection = rowProjection<MandateEvent>({
  name: "sepa_mandates",
  version: 1,
  table: "sepa_mandates",
  columns: MANDATE_COLUMNS,
  schema: `
CREATE TABLE sepa_mandates (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  lease_id uuid NOT NULL,
  lessee_id uuid NOT NULL,
  rum text NOT NULL,
  iban text NOT NULL,
  bic text,
  signed_on date NOT NULL,
  last_used_on date,
  revoked_on date
);
CREATE INDEX sepa_mandates_lease ON sepa_mandates (tenant_id, lease_id);
${tenantPolicy("sepa_mandates")}`,
  handles: mandateEventTypes,
  idOf: (e) => e.data.mandate_id,
  creates: ["SepaMandateSigned"],
  evolve: (row, e) => {
    switch (e.type) {
      case "SepaMandateSigned": {
        const { mandate_id, ...rest } = e.data;
        return { ...rest, id: mandate_id, last_used_on: null, revoked_on: null };
      }
      case "SepaMandateRevoked":
        return row ? { ...row, revoked_on: e.data.revoked_on } : row;
      case "SepaMandateUsed":
        return row && String(row.last_used_on ?? "") < e.data.used_on
          ? { ...row, last_used_on: e.data.used_on }
          : row;
    }
  },
});

/**
 * `sepa_collections`: one row per batch, its event's data as it was decided (the pain.008 file is
 * built from it) and the rejected transactions by end-to-end id with their reason.
 */
const collectionsProjection = rowProjection<CollectionEvent>({
  name: "sepa_collections",
  version: 1,
  table: "sepa_collections",
  columns: ["tenant_id", "id", "bank_account_id", "due_on", "data", "rejected", "created_at", "updated_at"],
  schema: `
CREATE TABLE sepa_collections (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  bank_account_id uuid NOT NULL,
  due_on date NOT NULL,
  data jsonb NOT NULL,
  rejected jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sepa_collections_account ON sepa_collections (tenant_id, bank_account_id, due_on);
${tenantPolicy("sepa_collections")}`,
  handles: collectionEventTypes,
  idOf: (e) => e.data.collection_id,
  creates: ["SepaCollectionCreated"],
  evolve: (row, e) => {
    const at = e.metadata.occurred_at;
    switch (e.type) {
      case "SepaCollectionCreated":
        return {
          id: e.data.collection_id,
          bank_account_id: e.data.bank_account_id,
          due_on: e.data.due_on,
          data: e.data,
          rejected: {},
          created_at: at,
          updated_at: at,
        };
      case "SepaCollectionRejected": {
        if (!row) return row;
        const rejected = { ...(row.rejected as Record<string, string>) };
        for (const r of e.data.rejections) rejected[r.end_to_end_id] = r.reason_code;
        return { ...row, rejected, updated_at: at };
      }
    }
  },
});

export const bankProjections = [
  resourceProjection(bankAccountResource),
  bankLinesProjection,
  mandatesProjection,
  collectionsProjection,
];
