import { describe, expect, it } from "vitest";
import {
  CODE_VALID_MS,
  codeHash,
  decideLeaseSigning,
  leaseSigningDecider,
  MAX_ATTEMPTS,
  RESEND_AFTER_MS,
  signingDecider,
  wrongCodeError,
} from "../../src/commands/signing/decider.ts";
import type { LeaseEvent } from "../../src/events/leases.ts";
import type { SignatureInitiatedData, SigningEvent, SigningStep } from "../../src/events/signing.ts";
import type { AnnexCompliance } from "../../src/law/annexes.ts";
import { deciderSpec } from "../support/deciderSpec.ts";
import { leaseHistory, sampleTerms } from "../support/leaseHistory.ts";

/** The signing decisions (docs/signing.md): given events, when a command, then events or a refusal. */

const LEASE = "7a1c0000-0000-4000-8000-000000000001";
const spec = deciderSpec(signingDecider(LEASE));
const T0 = Date.parse("2026-11-26T10:00:00.000Z");
const at = (ms: number): SigningStep => ({
  at: new Date(T0 + ms).toISOString(),
  ip: "203.0.113.7",
  user_agent: "test",
  channel: "api",
  actor: "key",
});
const SALT = "00112233445566778899aabbccddeeff";
const compliant: AnnexCompliance = {
  status: "COMPLIANT",
  missing: [],
  due_at_handover: [],
  expired: [],
  verdicts: [],
};
const process: SignatureInitiatedData = {
  lease_id: LEASE,
  process_id: "p1",
  reservation_id: "p1",
  lease_revision: 3,
  contract: { pdf_id: "pdf", sha256: "c".repeat(64), filename: "bail.pdf" },
  annexes: [],
  document_sha256: "d".repeat(64),
  signatories: [
    {
      signatory_id: "s1",
      role: "Primary",
      lessee_id: "l1",
      auth_user_id: "u1",
      name: "Camille",
      email: "c@x.fr",
    },
    { signatory_id: "s2", role: "Lessor", lessee_id: null, auth_user_id: null, name: "SCI", email: "b@x.fr" },
  ],
  step: at(0),
};
const initiated: SigningEvent = { type: "LeaseSignatureInitiated", data: process };
const sent = (signatory_id: string, ms: number): SigningEvent => ({
  type: "LeaseSignatureCodeSent",
  data: {
    lease_id: LEASE,
    process_id: "p1",
    signatory_id,
    code_hash: codeHash("123456", SALT),
    salt: SALT,
    expires_at: new Date(T0 + ms + CODE_VALID_MS).toISOString(),
    message_id: "m",
    step: at(ms),
  },
});
const sendCode = (ms: number, signatory_id = "s1") =>
  ({
    type: "SendSignatureCode",
    signatory_id,
    code_hash: "h",
    salt: "s",
    message_id: "m2",
    step: at(ms),
  }) as const;
const validate = (otp: string, ms: number, signatory_id = "s1") =>
  ({ type: "ValidateSignatureCode", signatory_id, otp, step: at(ms) }) as const;
const rejected = (attempts: number): SigningEvent => ({
  type: "LeaseSignatureCodeRejected",
  data: {
    lease_id: LEASE,
    process_id: "p1",
    signatory_id: "s1",
    attempts,
    locked: attempts >= MAX_ATTEMPTS,
    step: at(1000),
  },
});
const signedBy = (signatory_id: string): SigningEvent => ({
  type: "LeaseSignatorySigned",
  data: { lease_id: LEASE, process_id: "p1", signatory_id, document_sha256: "d".repeat(64), step: at(2000) },
});

describe("signing decider: initiation", () => {
  it("initiates a DRAFT lease with compliant annexes", () => {
    spec
      .given([])
      .when({ type: "InitiateSignature", lease_status: "DRAFT", compliance: compliant, process })
      .then([initiated]);
  });
  it("refuses a lease that is not DRAFT (409), missing annexes (422 naming them), a second process (409)", () => {
    spec
      .given([])
      .when({ type: "InitiateSignature", lease_status: "ACTIVE", compliance: compliant, process })
      .thenRefuses(409, /DRAFT/);
    const missing: AnnexCompliance = {
      ...compliant,
      status: "NON_COMPLIANT",
      missing: [{ code: "ERP", reason: "ERP is missing", legal_reference: "art. 3-3" }],
    };
    spec
      .given([])
      .when({ type: "InitiateSignature", lease_status: "DRAFT", compliance: missing, process })
      .thenRefuses(422, /ERP/, ["annexes.ERP"]);
    spec
      .given([initiated])
      .when({ type: "InitiateSignature", lease_status: "DRAFT", compliance: compliant, process })
      .thenRefuses(409, /in progress/);
  });
  it("refuses a signatory without an email", () => {
    const noEmail = { ...process, signatories: [{ ...process.signatories[1], email: null }] };
    spec
      .given([])
      .when({ type: "InitiateSignature", lease_status: "DRAFT", compliance: compliant, process: noEmail })
      .thenRefuses(409, /email/);
  });
});

describe("signing decider: one-time passwords", () => {
  it("sends a code valid 10 minutes", () => {
    const [event] = spec.given([initiated]).when(sendCode(0)).thenEvents();
    expect(event).toMatchObject({
      type: "LeaseSignatureCodeSent",
      data: { expires_at: new Date(T0 + CODE_VALID_MS).toISOString() },
    });
  });
  it("sends a new code 60 s after the last one, not a millisecond before (429)", () => {
    spec
      .given([initiated, sent("s1", 0)])
      .when(sendCode(RESEND_AFTER_MS - 1))
      .thenRefuses(429, /60 seconds/);
    expect(
      spec
        .given([initiated, sent("s1", 0)])
        .when(sendCode(RESEND_AFTER_MS))
        .thenEvents(),
    ).toHaveLength(1);
  });
  it("signs with the right code until its 10th minute, refuses it after (409)", () => {
    spec
      .given([initiated, sent("s1", 0)])
      .when(validate("123456", CODE_VALID_MS))
      .then([
        {
          ...signedBy("s1"),
          data: { ...(signedBy("s1").data as object), step: at(CODE_VALID_MS) },
        } as SigningEvent,
      ]);
    spec
      .given([initiated, sent("s1", 0)])
      .when(validate("123456", CODE_VALID_MS + 1))
      .thenRefuses(409, /expired/);
  });
  it("counts wrong codes and locks at the 5th; a locked signatory is refused, even the right code", () => {
    const history = [initiated, sent("s1", 0), rejected(1), rejected(2), rejected(3)];
    const fourth = spec.given(history).when(validate("000000", 1000)).thenEvents();
    expect(fourth).toEqual([rejected(4)]);
    expect(wrongCodeError(fourth)?.status).toBe(400);
    const fifth = spec
      .given([...history, rejected(4)])
      .when(validate("000000", 1000))
      .thenEvents();
    expect(fifth).toEqual([rejected(5)]);
    expect(wrongCodeError(fifth)?.message).toMatch(/locked/);
    spec
      .given([...history, rejected(4), rejected(5)])
      .when(validate("123456", 1000))
      .thenRefuses(409, /locked/);
    spec
      .given([...history, rejected(4), rejected(5)])
      .when(sendCode(RESEND_AFTER_MS))
      .thenRefuses(409, /locked/);
  });
  it("refuses a code before one was sent, an unknown signatory, a second signature", () => {
    spec
      .given([initiated])
      .when(validate("123456", 0))
      .thenRefuses(409, /request one first/);
    spec.given([initiated]).when(sendCode(0, "nobody")).thenRefuses(404);
    spec
      .given([initiated, sent("s1", 0), signedBy("s1")])
      .when(sendCode(RESEND_AFTER_MS))
      .thenRefuses(409, /signed already/);
  });
});

describe("signing decider: end and completion", () => {
  const completion = {
    signed_pdf: { blob_key: "k", sha256: "a", size: 1 },
    evidence: { blob_key: "e", sha256: "b", size: 2 },
    completed_at: "2026-11-26T10:05:00.000Z",
  };
  it("completes once every signatory has signed, once", () => {
    spec
      .given([initiated, signedBy("s1")])
      .when({ type: "CompleteSignature", completion })
      .thenRefuses(409);
    const all = [initiated, signedBy("s1"), signedBy("s2")];
    const done: SigningEvent = {
      type: "LeaseSignatureCompleted",
      data: { lease_id: LEASE, process_id: "p1", reservation_id: "p1", ...completion },
    };
    spec.given(all).when({ type: "CompleteSignature", completion }).then([done]);
    spec
      .given([...all, done])
      .when({ type: "CompleteSignature", completion })
      .thenNothing();
  });
  it("a cancel ends a pending process; nothing pending is a 409; a lease change on an ended one is a no-op", () => {
    const cancel = { type: "EndSignature", cause: "CANCELLED", reason: "r", step: at(0) } as const;
    expect(spec.given([initiated]).when(cancel).thenEvents()).toMatchObject([
      { type: "LeaseSignatureEnded", data: { cause: "CANCELLED", reservation_id: "p1" } },
    ]);
    spec.given([]).when(cancel).thenRefuses(409);
    spec
      .given([initiated, signedBy("s1"), signedBy("s2")])
      .when(cancel)
      .thenRefuses(409);
    spec
      .given([])
      .when({ ...cancel, cause: "LEASE_CHANGED" })
      .thenNothing();
  });
  it("annexes are fixed while the lease is being signed", () => {
    const annex = {
      lease_id: LEASE,
      annex_id: "a1",
      code: "OTHER" as const,
      category: "USER_UPLOAD" as const,
      title: "Autre",
      source: "UPLOAD" as const,
      source_id: null,
      document_date: null,
      valid_until: null,
      negative: null,
      file: null,
    };
    spec
      .given([])
      .when({ type: "AttachAnnex", annex })
      .then([{ type: "LeaseAnnexAttached", data: annex }]);
    spec
      .given([initiated])
      .when({ type: "AttachAnnex", annex })
      .thenRefuses(409, /being signed/);
  });
});

describe("lease status on signing", () => {
  const lease = deciderSpec(leaseSigningDecider);
  const draft: LeaseEvent[] = leaseHistory(LEASE, sampleTerms("7a1c0000-0000-4000-8000-0000000000e1"), {
    lessee_id: "7a1c0000-0000-4000-8000-0000000000a1",
    association_id: "7a1c0000-0000-4000-8000-0000000000b1",
  }).draft;
  const when = (type: "SendLeaseForSignature" | "ActivateSignedLease") => ({
    type,
    lease_id: LEASE,
    effective_date: "2026-11-26",
  });
  it("sends a DRAFT lease for signature, activates it once signed, returns it to DRAFT when ended", () => {
    const [sentEvent] = lease.given(draft).when(when("SendLeaseForSignature")).thenEvents();
    expect(sentEvent.type).toBe("LeaseSentForSignature");
    const pending = [...draft, sentEvent];
    expect(lease.given(pending).when(when("ActivateSignedLease")).thenEvents()[0].type).toBe(
      "LeaseActivated",
    );
    lease.given(pending).when(when("SendLeaseForSignature")).thenRefuses(409, /DRAFT/);
    expect(
      decideLeaseSigning(
        { type: "ReturnLeaseToDraft", lease_id: LEASE, effective_date: "2026-11-26", reason: "r" },
        lease.given(pending).state,
      ),
    ).toMatchObject([{ type: "LeaseReturnedToDraft" }]);
    lease
      .given(draft)
      .when({ type: "ReturnLeaseToDraft", lease_id: LEASE, effective_date: "2026-11-26", reason: "r" })
      .thenNothing();
    lease.given([]).when(when("SendLeaseForSignature")).thenRefuses(404);
  });
});
