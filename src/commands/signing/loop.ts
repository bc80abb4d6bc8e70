import type { WorkerLoop } from "../../platform/workerLoops.ts";
import { openSignatures } from "../../queries/signing.ts";
import {
  contextOf,
  endSigning,
  finishSigning,
  leaseChangeSince,
  type SigningDeps,
  workerStep,
} from "./process.ts";

/**
 * The signing reaction (docs/signing.md, "A change ends the process"): for each open process, a
 * lease that moved since it was sent for signature (terms, tenants, rent, status) ends it and
 * releases its credit; a process whose signatures are all in but whose completion was cut short
 * (a crash between streams) is completed. Every step is idempotent, so any number of workers may
 * run it at once.
 */

const BATCH = 100;

/** One pass; how many processes it ended or completed. */
export async function reactToLeaseChanges(deps: SigningDeps): Promise<number> {
  let handled = 0;
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
