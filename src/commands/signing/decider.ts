import { createHmac, timingSafeEqual } from "node:crypto";
import type { LeaseEvent } from "../../events/leases.ts";
import { ABSENT_LEASE, evolveLease, type LeaseViewState } from "../../events/leaseView.ts";
import {
  type AnnexData,
  emptySigning,
  evolveSigning,
  type SignatoryState,
  type SignatureCompletedData,
  type SignatureEndedData,
  type SignatureInitiatedData,
  type SigningEvent,
  type SigningState,
  type SigningStep,
} from "../../events/signing.ts";
import type { AnnexCompliance } from "../../law/annexes.ts";
import type { Decider } from "../../platform/decider.ts";
import { ApiError, conflict, fieldError, notFound, unprocessable } from "../../platform/errors.ts";

/**
 * The signing decisions (docs/signing.md): annexes, then one process at a time of one-time
 * password signatures (code civil art. 1366: a simple electronic signature). The codes' rules:
 * valid 10 minutes, 5 wrong attempts lock the signatory, a new code 60 s after the last one.
 */

export const CODE_VALID_MS = 10 * 60_000;
export const MAX_ATTEMPTS = 5;
export const RESEND_AFTER_MS = 60_000;

/** The stored form of a code: HMAC-SHA256 keyed by a random salt (the code itself is never kept). */
export const codeHash = (code: string, salt: string) => createHmac("sha256", salt).update(code).digest("hex");

export type SigningCommand =
  | { type: "AttachAnnex"; annex: AnnexData }
  | {
      type: "InitiateSignature";
      lease_status: string;
      compliance: AnnexCompliance;
      process: SignatureInitiatedData;
    }
  | {
      type: "SendSignatureCode";
      signatory_id: string;
      code_hash: string;
      salt: string;
      message_id: string;
      step: SigningStep;
    }
  | { type: "ValidateSignatureCode"; signatory_id: string; otp: string; step: SigningStep }
  | {
      type: "CompleteSignature";
      completion: Omit<SignatureCompletedData, "lease_id" | "process_id" | "reservation_id">;
    }
  | { type: "EndSignature"; cause: SignatureEndedData["cause"]; reason: string; step: SigningStep };

const pendingProcess = (state: SigningState) => {
  const p = state.process;
  if (p?.status !== "PENDING")
    throw conflict(
      p?.status === "SIGNED" || p?.status === "COMPLETED"
        ? "Every signatory has signed this lease already"
        : "The lease has no signature in progress (POST .../signature/initiate first)",
    );
  return p;
};

const signatoryOf = (state: SigningState, id: string): SignatoryState => {
  const p = pendingProcess(state);
  const s = p.signatories[id];
  if (!s) throw notFound("Signatory", id);
  if (s.status === "SIGNED") throw conflict(`Signatory ${id} has signed already`);
  if (s.status === "LOCKED")
    throw conflict(
      `Signatory ${id} is locked after ${MAX_ATTEMPTS} wrong codes; cancel the signature (POST .../signature/cancel) and initiate it again`,
    );
  return s;
};

const ms = (iso: string) => Date.parse(iso);

function attach(annex: AnnexData, state: SigningState): SigningEvent[] {
  const p = state.process;
  if (p && (p.status === "PENDING" || p.status === "SIGNED"))
    throw conflict("The annexes cannot change while the lease is being signed; cancel the signature first");
  if (p?.status === "COMPLETED") throw conflict("The lease is signed: its annexes are final");
  return [{ type: "LeaseAnnexAttached", data: annex }];
}

function initiate(cmd: Extract<SigningCommand, { type: "InitiateSignature" }>, state: SigningState) {
  const p = state.process;
  if (p && (p.status === "PENDING" || p.status === "SIGNED"))
    throw conflict("A signature of this lease is in progress already");
  if (cmd.lease_status !== "DRAFT")
    throw conflict(`Only a DRAFT lease is sent for signature; this one is ${cmd.lease_status}`);
  if (cmd.compliance.status !== "COMPLIANT") {
    const problems = [...cmd.compliance.missing, ...cmd.compliance.expired];
    throw unprocessable(
      `The lease's mandatory annexes are not complete: ${problems.map((m) => m.code).join(", ")} (loi n° 89-462 art. 3, 3-2, 3-3, 25-5)`,
      problems.map((m) => ({ field: `annexes.${m.code}`, message: m.reason })),
    );
  }
  const unreachable = cmd.process.signatories.filter((s) => s.email === null);
  if (unreachable.length > 0)
    throw conflict(
      `Every signatory needs an email for their one-time password; none for ${unreachable.map((s) => `${s.role} ${s.name}`).join(", ")}`,
    );
  return [{ type: "LeaseSignatureInitiated", data: cmd.process }] satisfies SigningEvent[];
}

function sendCode(cmd: Extract<SigningCommand, { type: "SendSignatureCode" }>, state: SigningState) {
  const p = pendingProcess(state);
  const s = signatoryOf(state, cmd.signatory_id);
  const now = ms(cmd.step.at);
  if (s.code && now - ms(s.code.sent_at) < RESEND_AFTER_MS) {
    const wait = Math.ceil((RESEND_AFTER_MS - (now - ms(s.code.sent_at))) / 1000);
    throw new ApiError(
      "TooManyRequests",
      `A code was sent less than 60 seconds ago; ask for a new one in ${wait} s`,
    );
  }
  return [
    {
      type: "LeaseSignatureCodeSent",
      data: {
        lease_id: "",
        process_id: p.process_id,
        signatory_id: s.signatory_id,
        code_hash: cmd.code_hash,
        salt: cmd.salt,
        expires_at: new Date(now + CODE_VALID_MS).toISOString(),
        message_id: cmd.message_id,
        step: cmd.step,
      },
    },
  ] satisfies SigningEvent[];
}

const sameHash = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));

function validate(cmd: Extract<SigningCommand, { type: "ValidateSignatureCode" }>, state: SigningState) {
  const p = pendingProcess(state);
  const s = signatoryOf(state, cmd.signatory_id);
  if (!s.code) throw conflict(`No code was sent to signatory ${s.signatory_id}; request one first`);
  if (ms(cmd.step.at) > ms(s.code.expires_at))
    throw conflict(
      `The code expired at ${s.code.expires_at} (codes are valid 10 minutes); request a new one`,
    );
  if (sameHash(codeHash(cmd.otp, s.code.salt), s.code.hash))
    return [
      {
        type: "LeaseSignatorySigned",
        data: {
          lease_id: "",
          process_id: p.process_id,
          signatory_id: s.signatory_id,
          document_sha256: p.document_sha256,
          step: cmd.step,
        },
      },
    ] satisfies SigningEvent[];
  const attempts = s.attempts + 1;
  return [
    {
      type: "LeaseSignatureCodeRejected",
      data: {
        lease_id: "",
        process_id: p.process_id,
        signatory_id: s.signatory_id,
        attempts,
        locked: attempts >= MAX_ATTEMPTS,
        step: cmd.step,
      },
    },
  ] satisfies SigningEvent[];
}

function complete(cmd: Extract<SigningCommand, { type: "CompleteSignature" }>, state: SigningState) {
  const p = state.process;
  if (p?.status === "COMPLETED") return [];
  if (p?.status !== "SIGNED") throw conflict("Not every signatory has signed the lease yet");
  return [
    {
      type: "LeaseSignatureCompleted",
      data: { lease_id: "", process_id: p.process_id, reservation_id: p.reservation_id, ...cmd.completion },
    },
  ] satisfies SigningEvent[];
}

function end(cmd: Extract<SigningCommand, { type: "EndSignature" }>, state: SigningState) {
  const p = state.process;
  if (!p || p.status === "CANCELLED" || p.status === "COMPLETED") {
    if (cmd.cause === "LEASE_CHANGED") return [];
    throw conflict("The lease has no signature in progress to cancel");
  }
  if (p.status === "SIGNED") throw conflict("Every signatory has signed: the signature is being completed");
  return [
    {
      type: "LeaseSignatureEnded",
      data: {
        lease_id: "",
        process_id: p.process_id,
        reservation_id: p.reservation_id,
        cause: cmd.cause,
        reason: cmd.reason,
        step: cmd.step,
      },
    },
  ] satisfies SigningEvent[];
}

/** Every event of the stream names its lease: the decider fills it from the command's stream. */
const onLease = (leaseId: string, events: SigningEvent[]): SigningEvent[] =>
  events.map((e) => ({ ...e, data: { ...e.data, lease_id: leaseId } }) as SigningEvent);

export function decideSigning(leaseId: string) {
  return (command: SigningCommand, state: SigningState): SigningEvent[] => {
    switch (command.type) {
      case "AttachAnnex":
        return attach(command.annex, state);
      case "InitiateSignature":
        return initiate(command, state);
      case "SendSignatureCode":
        return onLease(leaseId, sendCode(command, state));
      case "ValidateSignatureCode":
        return onLease(leaseId, validate(command, state));
      case "CompleteSignature":
        return onLease(leaseId, complete(command, state));
      case "EndSignature":
        return onLease(leaseId, end(command, state));
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  };
}

export const signingDecider = (leaseId: string): Decider<SigningState, SigningCommand, SigningEvent> => ({
  initialState: emptySigning,
  evolve: evolveSigning,
  decide: decideSigning(leaseId),
});

// ---------------------------------------------------------------- the lease's status

/**
 * What signing does to the lease stream, on the lease's one fold (src/events/leaseView.ts), with
 * the lease's existing status events (docs/design.md §6 Leases transitions).
 */
export type LeaseSigningCommand =
  | { type: "SendLeaseForSignature"; lease_id: string; effective_date: string }
  | { type: "ActivateSignedLease"; lease_id: string; effective_date: string }
  | { type: "ReturnLeaseToDraft"; lease_id: string; effective_date: string; reason: string };

function liveLease(state: LeaseViewState, leaseId: string) {
  if (state.status === "absent" || state.status === "deleted") throw notFound("Lease", leaseId);
  return state;
}

export function decideLeaseSigning(command: LeaseSigningCommand, state: LeaseViewState): LeaseEvent[] {
  const lease = liveLease(state, command.lease_id);
  const data = { lease_id: command.lease_id, effective_date: command.effective_date };
  switch (command.type) {
    case "SendLeaseForSignature":
      if (lease.status !== "DRAFT")
        throw conflict(`Only a DRAFT lease is sent for signature; this one is ${lease.status}`);
      if (!Object.values(lease.lessees).some((t) => t.role === "Primary" && !t.ended))
        throw conflict(`Lease ${command.lease_id} needs an active Primary tenant to be signed`);
      return [
        {
          type: "LeaseSentForSignature",
          data: { ...data, reason: "Sent for signature (simple electronic signature, code civil art. 1366)" },
        },
      ];
    case "ActivateSignedLease":
      if (lease.status === "ACTIVE") return [];
      if (lease.status !== "PENDING_SIGNATURE")
        throw conflict(`Lease ${command.lease_id} is ${lease.status}, not PENDING_SIGNATURE`);
      return [{ type: "LeaseActivated", data: { ...data, reason: "Signed by every signatory" } }];
    case "ReturnLeaseToDraft":
      if (lease.status !== "PENDING_SIGNATURE") return [];
      return [{ type: "LeaseReturnedToDraft", data: { ...data, reason: command.reason } }];
    default: {
      const _exhaustive: never = command;
      return _exhaustive;
    }
  }
}

export const leaseSigningDecider: Decider<LeaseViewState, LeaseSigningCommand, LeaseEvent> = {
  initialState: () => ABSENT_LEASE,
  evolve: evolveLease,
  decide: decideLeaseSigning,
};

/** A wrong code is refused after its attempt is recorded (the lock counts it): the answer. */
export function wrongCodeError(events: SigningEvent[]): ApiError | null {
  const rejected = events.find((e) => e.type === "LeaseSignatureCodeRejected");
  if (rejected?.type !== "LeaseSignatureCodeRejected") return null;
  const { attempts, locked, signatory_id } = rejected.data;
  if (locked)
    return conflict(
      `Wrong code: signatory ${signatory_id} is now locked after ${MAX_ATTEMPTS} wrong codes; cancel the signature and initiate it again`,
    );
  return fieldError(
    "otp",
    `Wrong code; ${MAX_ATTEMPTS - attempts} attempt(s) left`,
    "Wrong one-time password",
  );
}
