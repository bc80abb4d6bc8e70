import { legalToday } from "../../law/calendar.ts";
import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { openSignatures, strandedReservations } from "../../queries/signing.ts";
import {
  contextOf,
  endSigning,
  finishSigning,
  leaseChangeSince,
  loadSigning,
  onLease,
  onLedger,
  type SigningDeps,
  workerStep,
} from "./process.ts";

/**
 * The signing reaction (docs/signing.md, "A change ends the process"): for each open process, a
 * lease that moved since it was sent for signature (terms, tenants, rent, status) ends it and
 * releases its credit; a process whose signatures are all in but whose completion was cut short
 * (a crash between streams) is completed. Every step is idempotent, so any number of workers may
 * run it at once. Once a minute it also releases the credits of initiations cut short (reserved,
 * no process after 10 minutes).
 */

const BATCH = 100;
/** A reservation this old without its process was cut short: released (and its lease back to DRAFT). */
export const STRANDED_AFTER_MINUTES = 10;
const STRANDED_SCAN_MS = 60_000;
let lastStrandedScan = 0;

/** Releases the credits of initiations cut short between the reservation and the process. */
export async function releaseStrandedReservations(deps: SigningDeps): Promise<number> {
  let handled = 0;
  for (const held of await strandedReservations(deps.sql, STRANDED_AFTER_MINUTES, BATCH)) {
    const context = contextOf(deps, held.tenant_id);
    const leaseId = held.purpose.slice("lease_signature:".length);
    await onLedger(context, { type: "ReleaseCredits", reservation_id: held.reservation_id });
    // The lease may have been sent for signature without its process: back to DRAFT, unless a
    // later initiation has a process open on it.
    const open = (await loadSigning(deps, held.tenant_id, leaseId)).state.process;
    if (open?.status !== "PENDING" && open?.status !== "SIGNED")
      await onLease(context, leaseId, {
        type: "ReturnLeaseToDraft",
        lease_id: leaseId,
        effective_date: legalToday(),
        reason: "Signature not started",
      }).catch(() => undefined);
    handled++;
  }
  return handled;
}

/** One pass; how many processes it ended or completed. */
export async function reactToLeaseChanges(deps: SigningDeps): Promise<number> {
  let handled = 0;
  if (Date.now() - lastStrandedScan >= STRANDED_SCAN_MS) {
    lastStrandedScan = Date.now();
    handled += await releaseStrandedReservations(deps);
  }
  for (const open of await openSignatures(deps.sql, BATCH)) {
    const context = contextOf(deps, open.tenant_id);
    if (open.status === "SIGNED") {
      await finishSigning(deps, context, open.lease_id);
      handled++;
      continue;
    }
    const change = await leaseChangeSince(deps, open.lease_id, Number(open.lease_revision));
    if (!change) continue;
    await endSigning(deps, context, open.lease_id, {
      cause: "LEASE_CHANGED",
      reason: `The lease changed (${change}) while it was being signed`,
      step: workerStep(),
    });
    handled++;
  }
  return handled;
}

export const signingLoop: WorkerLoop = {
  name: "lease-signing",
  open: ({ sql, store }) => ({ run: () => reactToLeaseChanges({ sql, store }) }),
};
