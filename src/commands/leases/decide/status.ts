import type { LeaseEvent, LeaseStatus, StatusChange } from "../../../events/leases.ts";
import { addDays, termEnd } from "../../../law/calendar.ts";
import { depositDueOn } from "../../../law/depositReturn.ts";
import { endsAtTerm, type LeaseType, type LessorKind, renewalMonths } from "../../../law/leaseTypes.ts";
import {
  DEFAULT_NOTICE,
  type ElderlyTenantFacts,
  elderlyTenantVerdict,
  type LessorNoticeFacts,
  lessorNoticeVerdict,
  type NoticeFacts,
  type NoticeGiver,
  type NoticeReason,
  noticeReasonVerdict,
  noticeVerdict,
  rentOwedUntilVerdict,
  victimSolidarityVerdict,
} from "../../../law/notice.ts";
import { conflict, enforce, unprocessable } from "../../../platform/errors.ts";
import { activePrimaries, type LeaseState, live } from "./rules.ts";

/** A lease's status: the transitions of docs/design.md §6 Leases, notice, and the term's renewal or expiry. */

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
  | { type: "ReachLeaseTerm"; lease_id: string; today: string; lessor: LessorKind }
  /** POST .../notices (docs/moving.md "Notices"): the same LeaseNoticeGiven, with its reason checked. */
  | {
      type: "GiveLeaseNotice";
      lease_id: string;
      notice_id: string;
      received_on: string;
      given_by: NoticeGiver;
      reason: NoticeReason | null;
      /** The estate's zone (src/law/notice.ts); the rest of the facts come from the reason. */
      high_demand_zone: boolean | null;
      /** A lessor's notice: what it states (art. 15 I, II) and the protected elderly tenant (art. 15 III). */
      sale?: LessorNoticeFacts["sale"];
      repossession?: LessorNoticeFacts["repossession"];
      acquired_occupied_on?: string | null;
      elderly_tenant?: ElderlyTenantFacts | null;
      /** Who lets (art. 15 III: the exceptions are a natural person's); absent: a natural person. */
      lessor?: LessorKind;
    }
  /** POST .../termination (docs/moving.md "Termination"): the keys are back, the lease ends. */
  | {
      type: "TerminateLease";
      lease_id: string;
      keys_returned_on: string;
      exit_report_id: string | null;
      /** exitReportFacts' `matches` for exit_report_id; null without a report. */
      exit_report_matches: boolean | null;
      /** The day another lessee occupies the dwelling with the lessor's agreement (art. 15 I). */
      relet_on?: string | null;
    };

/** docs/design.md §6 Leases: the transitions allowed from each status. */
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

function refuseTransition(leaseId: string, from: LeaseStatus, to: LeaseStatus): never {
  const allowed = TRANSITIONS[from];
  throw conflict(
    `Lease ${leaseId} cannot go from ${from} to ${to}` +
      (allowed.length ? ` (allowed: ${allowed.join(", ")})` : ` (${from} is final)`),
  );
}

function changeStatus(
  command: Extract<StatusCommand, { type: "ChangeLeaseStatus" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (!TRANSITIONS[lease.status].includes(command.status))
    refuseTransition(command.lease_id, lease.status, command.status);
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
    if (facts.given_by === "LESSOR") lessorNoticeThroughNotices(lease.terms.lease_type, command.lease_id);
    const verdict = noticeVerdict(lease.terms, command.effective_date, facts);
    enforce(verdict);
    const notice_end_date = verdict.details.notice_end_date as string | null;
    return [{ type: "LeaseNoticeGiven", data: { ...data, given_by: facts.given_by, notice_end_date } }];
  }
  return [{ type: statusEventType(lease.status, command.status), data }];
}

/**
 * A lessor's notice on a lease under art. 15 or 25-8 states its motive and what the motive asks
 * (price, beneficiary; the elderly tenant's protection): PUT .../status carries none of it, so such
 * a notice is refused there with a pointer to POST .../notices, which judges them all.
 */
function lessorNoticeThroughNotices(type: LeaseType, leaseId: string): void {
  const reason = noticeReasonVerdict(type, "LESSOR", null);
  if (reason.status !== "FAIL") return;
  enforce({
    ...reason,
    message: `${reason.message}: give it with POST /api/leases/${leaseId}/notices, which states the motive and what it requires`,
  });
}

/**
 * A lease past its end date (docs/design.md §6 Leases, docs/compliance.md "Term"): a bail mobilité or a
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

/**
 * A notice with its reason (loi n° 89-462 art. 15 I, 25-8 I): the reason must fit who gives it (a
 * lessor's notice under the law states its motive), a lessee's listed case shortens the period;
 * the period and the term are noticeVerdict's, as for PUT .../status.
 */
function giveNotice(
  command: Extract<StatusCommand, { type: "GiveLeaseNotice" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (lease.status !== "ACTIVE") refuseTransition(command.lease_id, lease.status, "NOTICE");
  const reason = noticeReasonVerdict(lease.terms.lease_type, command.given_by, command.reason);
  enforce(reason);
  const period = noticeVerdict(lease.terms, command.received_on, {
    given_by: command.given_by,
    reduced_notice: reason.details.reduced_notice === true,
    high_demand_zone: command.high_demand_zone,
    requested_end: null,
  });
  enforce(period);
  let notice_end_date = period.details.notice_end_date as string | null;
  const extra: { sale_offer_until?: string; solidarity_ends_on?: string } = {};
  if (command.given_by === "LESSOR" && notice_end_date !== null) {
    const content = lessorNoticeVerdict({
      lease_type: lease.terms.lease_type,
      motive: command.reason,
      received_on: command.received_on,
      term: notice_end_date,
      sale: command.sale ?? null,
      repossession: command.repossession ?? null,
      acquired_occupied_on: command.acquired_occupied_on ?? null,
    });
    enforce(content);
    enforce(
      elderlyTenantVerdict({
        lease_type: lease.terms.lease_type,
        term: notice_end_date,
        // Art. 15 III's exceptions are a natural person's: a family SCI is a legal person there.
        lessor: command.lessor === "FAMILY_SCI" ? "LEGAL_PERSON" : (command.lessor ?? "NATURAL_PERSON"),
        facts: command.elderly_tenant ?? null,
      }),
    );
    notice_end_date = (content.details.notice_end_date as string | undefined) ?? notice_end_date;
    const offer = content.details.sale_offer_until as string | null | undefined;
    if (offer) extra.sale_offer_until = offer;
  }
  if (command.given_by === "LESSEE" && command.reason === "DOMESTIC_VIOLENCE")
    extra.solidarity_ends_on = victimSolidarityVerdict(command.received_on).details
      .solidarity_ends_on as string;
  return [
    {
      type: "LeaseNoticeGiven",
      data: {
        lease_id: command.lease_id,
        notice_id: command.notice_id,
        effective_date: command.received_on,
        reason: command.reason,
        given_by: command.given_by,
        notice_end_date,
        ...extra,
      },
    },
  ];
}

/**
 * The end of the lease at the keys' return (loi n° 89-462 art. 22): the deposit is due 1 month
 * later when the exit report matches the entry one, else 2. The lease ends when rent stops being
 * owed: at the notice's end when the keys come back earlier after the lessee's notice, at the keys'
 * return after the lessor's (art. 15 I, 25-8 I).
 */
function terminate(
  command: Extract<StatusCommand, { type: "TerminateLease" }>,
  state: LeaseState,
): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  if (!TRANSITIONS[lease.status].includes("TERMINATED"))
    refuseTransition(command.lease_id, lease.status, "TERMINATED");
  if (command.keys_returned_on < lease.terms.start_date)
    throw unprocessable(`The keys cannot be returned before the lease starts (${lease.terms.start_date})`, [
      { field: "keys_returned_on", message: `Before the start date ${lease.terms.start_date}` },
    ]);
  const due = depositDueOn(command.keys_returned_on, command.exit_report_matches);
  // Rent runs to the lease's end: the notice's, or the keys' return (art. 15 I, rentOwedUntilVerdict).
  const owed = rentOwedUntilVerdict({
    lease_type: lease.terms.lease_type,
    given_by: lease.notice_given_by,
    notice_end_date: lease.status === "ACTIVE" ? null : lease.notice_end_date,
    keys_returned_on: command.keys_returned_on,
    relet_on: command.relet_on,
  });
  const effective_date = owed.details.owed_until as string;
  return [
    {
      type: "LeaseTerminated",
      data: {
        lease_id: command.lease_id,
        effective_date,
        reason: `Keys returned on ${command.keys_returned_on}`,
        keys_returned_on: command.keys_returned_on,
        exit_report_id: command.exit_report_id,
        exit_report_matches: command.exit_report_matches,
        deposit_due_on: due.details.due_on as string,
        ...(command.relet_on ? { relet_on: command.relet_on } : {}),
      },
    },
  ];
}

export function decideStatus(command: StatusCommand, state: LeaseState): LeaseEvent[] {
  switch (command.type) {
    case "ChangeLeaseStatus":
      return changeStatus(command, state);
    case "ReachLeaseTerm":
      return reachTerm(command, state);
    case "GiveLeaseNotice":
      return giveNotice(command, state);
    case "TerminateLease":
      return terminate(command, state);
  }
}
