import type { LeaseEvent } from "../../../events/leases.ts";
import type { LeaseDocument } from "../../../events/leaseView.ts";
import { changedFields } from "../../../platform/decider.ts";
import { notFound, validationError } from "../../../platform/errors.ts";
import { type LeaseState, type LiveLease, live } from "./rules.ts";

/** A lease's documents' metadata (bytes in the blob store): added, optionally to an amendment; changed; deleted. */

export type DocumentsCommand =
  | {
      type: "AddLeaseDocument";
      lease_id: string;
      document: Extract<LeaseEvent, { type: "LeaseDocumentAdded" }>["data"];
    }
  | {
      type: "UpdateLeaseDocument";
      lease_id: string;
      document_id: string;
      changes: { document_type?: string; description?: string | null };
    }
  | { type: "DeleteLeaseDocument"; lease_id: string; document_id: string };

function documentOf(lease: LiveLease, id: string): LeaseDocument {
  const found = lease.documents[id];
  if (!found) throw notFound("Document", id);
  return found;
}

/** An id in the body that is not one of this lease's amendments: 400 (docs/design.md §4). */
function add(command: Extract<DocumentsCommand, { type: "AddLeaseDocument" }>, state: LeaseState) {
  const lease = live(state, command.lease_id);
  const amendmentId = command.document.amendment_id;
  if (amendmentId !== undefined && !lease.amendments[amendmentId])
    throw validationError("Invalid lease document", [
      {
        field: "amendment_id",
        message: `Amendment ${amendmentId} is not an amendment of lease ${command.lease_id}`,
      },
    ]);
  return [{ type: "LeaseDocumentAdded", data: command.document } satisfies LeaseEvent];
}

function update(command: Extract<DocumentsCommand, { type: "UpdateLeaseDocument" }>, state: LeaseState) {
  const current = documentOf(live(state, command.lease_id), command.document_id);
  const changes = changedFields(current, command.changes, ["document_type", "description"] as const);
  const data = { lease_id: command.lease_id, document_id: command.document_id, changes };
  return [{ type: "LeaseDocumentUpdated", data } satisfies LeaseEvent];
}

function remove(command: Extract<DocumentsCommand, { type: "DeleteLeaseDocument" }>, state: LeaseState) {
  documentOf(live(state, command.lease_id), command.document_id);
  const data = { lease_id: command.lease_id, document_id: command.document_id };
  return [{ type: "LeaseDocumentDeleted", data } satisfies LeaseEvent];
}

export function decideDocuments(command: DocumentsCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "AddLeaseDocument":
      return add(command, state);
    case "UpdateLeaseDocument":
      return update(command, state);
    case "DeleteLeaseDocument":
      return remove(command, state);
  }
}
