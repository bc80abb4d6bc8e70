import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseSigningStream, type SigningEvent } from "../../src/events/signing.ts";
import { signingProjections } from "../../src/projections/signing.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** The signing read models (docs/signing.md): given a process's events, then its row. */

describe.each(databaseKinds)("signing projections on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, signingProjections);
  });
  afterAll(async () => spec?.close());

  const lease_id = randomUUID();
  const process_id = randomUUID();
  const [s1, s2] = [randomUUID(), randomUUID()];
  const step = {
    at: "2026-11-26T10:00:00.000Z",
    ip: "203.0.113.7",
    user_agent: "t",
    channel: "api" as const,
    actor: "k",
  };
  const stream = leaseSigningStream(lease_id);
  const eventsOf = (process_id: string): SigningEvent[] => [
    {
      type: "LeaseSignatureInitiated",
      data: {
        lease_id,
        process_id,
        reservation_id: process_id,
        lease_revision: 2,
        contract: { pdf_id: randomUUID(), sha256: "c", filename: "bail.pdf" },
        annexes: [],
        document_sha256: "d",
        signatories: [
          {
            signatory_id: s1,
            role: "Primary",
            lessee_id: randomUUID(),
            auth_user_id: null,
            name: "A",
            email: "a@x.fr",
          },
          {
            signatory_id: s2,
            role: "Lessor",
            lessee_id: null,
            auth_user_id: null,
            name: "B",
            email: "b@x.fr",
          },
        ],
        step,
      },
    },
    {
      type: "LeaseSignatureCodeSent",
      data: {
        lease_id,
        process_id,
        signatory_id: s1,
        code_hash: "h",
        salt: "s",
        expires_at: "2026-11-26T10:10:00.000Z",
        message_id: randomUUID(),
        step,
      },
    },
    {
      type: "LeaseSignatureCodeRejected",
      data: { lease_id, process_id, signatory_id: s2, attempts: 5, locked: true, step },
    },
    {
      type: "LeaseSignatorySigned",
      data: { lease_id, process_id, signatory_id: s1, document_sha256: "d", step },
    },
  ];

  it("keeps each signatory's status, never the code's hash", async () => {
    const t = await spec.given(eventsOf(process_id).map((e) => on(stream, e)));
    const [row] = await t.rows("lease_signatures");
    expect(row).toMatchObject({ id: process_id, lease_id, status: "PENDING", document_sha256: "d" });
    expect(row.signatories).toMatchObject([
      { signatory_id: s1, status: "SIGNED", code_expires_at: null },
      { signatory_id: s2, status: "LOCKED", attempts: 5 },
    ]);
    expect(JSON.stringify(row)).not.toContain('"h"');
  });

  it("an ended process is CANCELLED with its cause", async () => {
    // Row ids are global: this test's process has its own.
    const process_id = randomUUID();
    const ended: SigningEvent = {
      type: "LeaseSignatureEnded",
      data: {
        lease_id,
        process_id,
        reservation_id: process_id,
        cause: "LEASE_CHANGED",
        reason: "changed",
        step,
      },
    };
    const t = await spec.given([...eventsOf(process_id), ended].map((e) => on(stream, e)));
    expect((await t.rows("lease_signatures"))[0]).toMatchObject({
      status: "CANCELLED",
      end_cause: "LEASE_CHANGED",
    });
  });
});
