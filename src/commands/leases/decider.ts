import type { LeaseEvent } from "../../events/leases.ts";
import { ABSENT_LEASE, evolveLease } from "../../events/leaseView.ts";
import type { Decider } from "../../platform/decider.ts";
import { type AmendmentStatusCommand, decideAmendmentStatus } from "./decide/amendmentStatus.ts";
import { type AmendmentsCommand, decideAmendments } from "./decide/amendments.ts";
import { type DocumentsCommand, decideDocuments } from "./decide/documents.ts";
import { decideRent, type RentCommand } from "./decide/rent.ts";
import type { LeaseState } from "./decide/rules.ts";
import { decideStatus, type StatusCommand } from "./decide/status.ts";
import { decideTenants, type TenantsCommand } from "./decide/tenants.ts";
import { decideTerms, type TermsCommand } from "./decide/terms.ts";

/**
 * The lease decider (docs/design.md §6 Leases), one part per concern in ./decide/; its state is the
 * lease's one fold (src/events/leaseView.ts). Commands are domain types: the routes map the bodies.
 */

export type { DpeFact, RentChange } from "./decide/rent.ts";
export type { LeaseState, LesseeFact, LiveLease } from "./decide/rules.ts";
export { TRANSITIONS } from "./decide/status.ts";
export { CONTRACT_FIELDS } from "./decide/terms.ts";

export type LeaseCommand =
  | TermsCommand
  | StatusCommand
  | TenantsCommand
  | AmendmentsCommand
  | AmendmentStatusCommand
  | RentCommand
  | DocumentsCommand;

export const leaseDecider: Decider<LeaseState, LeaseCommand, LeaseEvent> = {
  initialState: () => ABSENT_LEASE,
  evolve: evolveLease,
  decide(command, state) {
    switch (command.type) {
      case "CreateLease":
      case "UpdateLease":
      case "DeleteLease":
        return decideTerms(command, state);
      case "ChangeLeaseStatus":
      case "ReachLeaseTerm":
      case "GiveLeaseNotice":
      case "TerminateLease":
        return decideStatus(command, state);
      case "AddLeaseLessee":
      case "UpdateLeaseLessee":
      case "EndLeaseLessee":
      case "RemoveLeaseLessee":
        return decideTenants(command, state);
      case "DraftAmendment":
      case "ReviseAmendment":
      case "DeleteAmendment":
        return decideAmendments(command, state);
      case "ChangeAmendmentStatus":
        return decideAmendmentStatus(command, state);
      case "ChangeRent":
        return decideRent(command, state);
      case "AddLeaseDocument":
      case "UpdateLeaseDocument":
      case "DeleteLeaseDocument":
        return decideDocuments(command, state);
      default: {
        const exhaustive: never = command;
        return exhaustive;
      }
    }
  },
};
