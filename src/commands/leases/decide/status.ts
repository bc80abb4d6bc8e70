import type { LeaseEvent, LeaseStatus, StatusChange } from "../../../events/leases.ts";
import { addDays, termEnd } from "../../../law/calendar.ts";
import { endsAtTerm, type LessorKind, renewalMonths } from "../../../law/leaseTypes.ts";
import { DEFAULT_NOTICE, type NoticeFacts, noticeVerdict } from "../../../law/notice.ts";
import { conflict, enforce } from "../../../platform/errors.ts";
import { activePrimaries, type LeaseState, live } from "./rules.ts";

/** A lease's status: the transitions of DESIGN.md §6 Leases, notice, and the term's renewal or expiry. */

export type StatusCommand =
  | {
      type: "ChangeLeaseStatus";
      lease_id: string;
      status: LeaseStatus;
      effective_date: string;
      reason: string | null;
      /** For NOTICE: who gives it and the facts its period depends on (src/law/notice.ts). */
      notice?: NoticeFacts;
    }
  /** The daily term job (../expire.ts): renew tacitly or expire a lease past its end date. */
  | { type: "ReachLeaseTerm"; lease_id: string; today: string; lessor: LessorKind };

/** DESIGN.md §6 Leases: the transitions allowed from each status. */
export const TRANSITIONS: Record<LeaseStatus, readonly LeaseStatus[]> = {
  DRAFT: ["PENDING_SIGNATURE", "ACTIVE"],
  PENDING_SIGNATURE: ["ACTIVE", "DRAFT"],
  ACTIVE: ["NOTICE", "TERMINATED", "EXPIRED"],
  NOTICE: ["ACTIVE", "FINALISATION", "TERMINATED"],
  FINALISATION: ["TERMINATED"],
  TERMINATED: [],
  EXPIRED: [],
};

const statusEventType = (from: LeaseStatus, to: LeaseStatus) => {
  if (to === "DRAFT") return "LeaseReturnedToDraft" as const;
  if (to === "ACTIVE" && from === "NOTICE") return "LeaseNoticeWithdrawn" as const;
  return (
    {
      PENDING_SIGNATURE: "LeaseSentForSignature",
      ACTIVE: "LeaseActivated",
      NOTICE: "LeaseNoticeGiven",
      FINALISATION: "LeaseFinalisationStarted",
      TERMINATED: "LeaseTerminated",
      EXPIRED: "LeaseExpired",
    } as const
  )[to];
};

function changeStatus(
  command: Extract<StatusCommand, { type: "ChangeLeaseStatus" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (!TRANSITIONS[lease.status].includes(command.status)) {
    const allowed = TRANSITIONS[lease.status];
    throw conflict(
      `Lease ${command.lease_id} cannot go from ${lease.status} to ${command.status}` +
        (allowed.length ? ` (allowed: ${allowed.join(", ")})` : ` (${lease.status} is final)`),
    );
  }
  if (command.status === "ACTIVE" && lease.status !== "NOTICE" && activePrimaries(lease).length === 0) {
    throw conflict(`Lease ${command.lease_id} needs an active Primary tenant to be activated`);
  }
  const data: StatusChange = {
    lease_id: command.lease_id,
    effective_date: command.effective_date,
    reason: command.reason,
  };
  if (command.status === "NOTICE") {
    const facts = command.notice ?? DEFAULT_NOTICE;
    const verdict = noticeVerdict(lease.terms, command.effective_date, facts);
    enforce(verdict);
    const notice_end_date = verdict.details.notice_end_date as string | null;
    return [{ type: "LeaseNoticeGiven", data: { ...data, given_by: facts.given_by, notice_end_date } }];
  }
  return [{ type: statusEventType(lease.status, command.status), data }];
}

/**
 * A lease past its end date (DESIGN.md §6 Leases, docs/compliance.md "Term"): a bail mobilité or a
 * student's 9-month lease ends at its term (art. 25-14, 25-7): LeaseExpired. An unfurnished or
 * furnished lease without notice is renewed tacitly (art. 10: 3 years, 6 for a legal-person lessor;
 * art. 25-7: 1 year): one LeaseRenewed per term reached, the lease stays ACTIVE. Other leases are
 * left as they are (no renewal rule confirmed). Nothing when the term is not passed.
 */
function reachTerm(
  command: Extract<StatusCommand, { type: "ReachLeaseTerm" }>,
  state: LeaseState,
): LeaseEvent[] {
  if (state.status !== "ACTIVE") return [];
  const { lease_type, end_date } = state.terms;
  if (end_date === null || end_date >= command.today) return [];
  if (endsAtTerm(lease_type))
    return [
      {
        type: "LeaseExpired",
        data: {
          lease_id: command.lease_id,
          effective_date: end_date,
          reason: `End of term: a ${lease_type} lease is not renewed (loi n° 89-462 art. ${lease_type === "MOBILITY" ? "25-14" : "25-7"})`,
        },
      },
    ];
  const months = renewalMonths(lease_type, command.lessor);
  if (months === null) return [];
  const events: LeaseEvent[] = [];
  let previous = end_date;
  while (previous < command.today) {
    const renewed_on = addDays(previous, 1);
    const next = termEnd(renewed_on, months);
    events.push({
      type: "LeaseRenewed",
      data: { lease_id: command.lease_id, renewed_on, previous_end_date: previous, end_date: next, months },
    });
    previous = next;
  }
  return events;
}

export function decideStatus(command: StatusCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "ChangeLeaseStatus":
      return changeStatus(command, state);
    case "ReachLeaseTerm":
      return reachTerm(command, state);
  }
}
