import { randomUUID } from "node:crypto";
import { leaseSigningStream, type SigningEvent } from "../../events/signing.ts";
import { blobStoreFor } from "../../platform/blobs/index.ts";
import type { NewEvent, Position, RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import type { SubjectErasure } from "../../platform/personalData/erasure.ts";
import { destroySubjectKey } from "../../platform/personalData/keyring.ts";
import { leasesWithRecordsErasable } from "../../queries/leases.ts";
import { signingKeptMentions, signingNaming } from "../../queries/signing.ts";

/**
 * A data subject's erasure reaches the signing streams naming them (docs/personal-data.md): each
 * process of such a lease's stream gets `LeaseSigningPersonalDataErased` (the read model's names
 * and emails become null), the stream's own key is destroyed (the signatories' names and emails,
 * and where each step was done from, read null in every replay), and the signed lease and its
 * evidence file, which print them, are deleted. The stream's other signatories are erased with
 * it, as a message's other recipients are: the key is the stream's. A lease that still needs its
 * records (in progress, unpaid, or within its 3-year limitation: leaseRecordsVerdict) keeps them.
 * Idempotent.
 */
export const signingErasure: SubjectErasure = {
  erase: async (deps, tenantId, dataSubject, metadata) => {
    const blobs = blobStoreFor(deps.sql);
    const named = await signingNaming(deps.sql, tenantId, dataSubject);
    const erasable = await leasesWithRecordsErasable(
      deps.sql,
      tenantId,
      named.map((l) => l.lease_id),
    );
    let position: Position | null = null;
    for (const { lease_id, blob_keys } of named) {
      // Kept while the lease needs them: its other parties' claims (src/law/retention.ts).
      if (!erasable.has(lease_id)) continue;
      const stream = leaseSigningStream(lease_id);
      const events = (await deps.store.readStream(stream)) as RecordedEvent<SigningEvent>[];
      const erased = new Set(
        events.flatMap((e) => (e.type === "LeaseSigningPersonalDataErased" ? [e.data.process_id] : [])),
      );
      const processes = events.flatMap((e) =>
        e.type === "LeaseSignatureInitiated" ? [e.data.process_id] : [],
      );
      const due: NewEvent[] = processes
        .filter((process_id) => !erased.has(process_id))
        .map((process_id) => ({
          event_id: randomUUID(),
          type: "LeaseSigningPersonalDataErased",
          data: {
            lease_id,
            process_id,
            data_subject: dataSubject,
            erased_at: metadata.occurred_at,
          },
          metadata: { ...metadata, tenant_id: tenantId },
        }));
      // Before the key goes, so an erasure is never without its record; a concurrent step's
      // append makes this one fail, and the erasure is asked again.
      if (due.length > 0)
        ({ position } = await deps.store.appendToStream(stream, due, {
          expected_revision: events[events.length - 1].stream_revision,
        }));
      await destroySubjectKey(deps.sql, tenantId, stream);
      for (const key of blob_keys) await blobs.deleteBlob(key);
    }
    return position;
  },
  kept: signingKeptMentions,
};
