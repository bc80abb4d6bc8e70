import { createHash, randomUUID } from "node:crypto";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { releaseStrandedReservations } from "../../src/commands/signing/loop.ts";
import { creditDecider, creditLedgerStream } from "../../src/events/credits.ts";
import { addDays, addMonths, legalToday } from "../../src/law/calendar.ts";
import { eraseKeptMentions } from "../../src/platform/personalData/erasure.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { runCommand } from "../../src/platform/runCommand.ts";
import { leaseSignaturesProjection } from "../../src/projections/signing.ts";
import { eventually } from "../support/eventually.ts";
import { startTestProvider, type TestProvider } from "../support/identityProvider.ts";
import { lesseeSpaceFixtures, registerProvider } from "../support/lesseeSpace.ts";
import { multipartForm } from "../support/multipart.ts";
import { pdfText } from "../support/pdfText.ts";
import { decodedText, startSmtpServer, type TestSmtpServer } from "../support/smtpServer.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Signing a lease (docs/signing.md) through the API: annexes and their compliance, the initiation
 * (422 missing annex, 402 no credit), the one-time password rules at their boundaries (resend after
 * 60 s, 10 minutes, 5 attempts), cancel and a change of the lease releasing the credit, and one
 * signature from a DRAFT lease to an ACTIVE one, the lessee signing through their own token with
 * the code read from the SMTP server.
 */

/** A one-page PDF showing `text`: a diagnostic's report as its diagnostician sends it. */
async function textPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, size: 14, font });
  return Buffer.from(await doc.save());
}

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(1024, 7), Buffer.from("\n%%EOF\n")]);
const SCOPES = "lessee:leases:read lessee:leases:sign lessee:leases:download";

describe.each(databaseKinds)("signing a lease on %s", (kind) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let idp: TestProvider;
  let owner: TestTenant;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(
      kind,
      {
        SMTP_URL: smtp.url,
        SMTP_FROM: "Gestion Dupont <gestion@dupont-immo.fr>",
        PMS_WEBHOOKS_ALLOW_LOCALHOST: "true",
      },
      { loops: true },
    );
    idp = await startTestProvider("signing");
    expect((await registerProvider(t, t.tenant.id, idp)).statusCode).toBe(200);
    owner = { id: "", key: await idp.sign({ roles: ["owner"] }, { expiresIn: "2h" }) };
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await smtp?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const f = lesseeSpaceFixtures(() => t);
  const today = legalToday();

  const upload = (leaseId: string, fields: Record<string, string>, as = t.tenant) => {
    const body = multipartForm(fields, { content: PDF, filename: "annexe.pdf", type: "application/pdf" });
    return t.app.inject({
      method: "POST",
      url: `/api/leases/${leaseId}/annexes`,
      payload: body.payload,
      headers: { "content-type": body.type, authorization: `Bearer ${as.key}` },
    });
  };
  /** A media upload (POST /api/media): what a DPE or diagnostic names with its `media_id`. */
  const mediaOf = async (content: Buffer, filename: string) => {
    const body = multipartForm({}, { content, filename, type: "application/pdf" });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/media",
      payload: body.payload,
      headers: { "content-type": body.type, authorization: `Bearer ${t.tenant.key}` },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; sha256: string };
  };
  /** The estate's DPE (its file's media, if any, in `fields`). */
  const recordDpe = async (estateId: string, fields: Record<string, unknown> = {}) => {
    const res = await t.request("POST", "/api/energy-diagnoses", {
      body: {
        estate_id: estateId,
        reference_number: "DPE-2401E0000001X",
        diagnosis_date: addMonths(today, -6),
        valid_until: addMonths(today, 114),
        energy_label: "D",
        ges_label: "C",
        construction_year: 1968,
        ...fields,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res;
  };
  const balance = async () => (await t.request("GET", "/api/credits/balance")).json();
  const buyCredits = async () => {
    const session = (
      await t.request("POST", "/api/credits/checkout", { body: { package_id: "starter" }, as: owner })
    ).json();
    const url = new URL(session.checkout_url);
    expect((await t.request("GET", `${url.pathname}${url.search}`, { as: null })).statusCode).toBe(200);
  };

  /** A DRAFT lease whose estate has an owner with an email, and its contract PDF. */
  const draftLease = async (extra: { primary_lessee_id?: string; start_date?: string } = {}) => {
    const lessor = await t.request("POST", "/api/owners", {
      body: { category: "company", legal_name: "SCI Dupont", email: "bailleur@sci-dupont.fr" },
    });
    const lease = await f.newLease(extra);
    const estate = await t.request("PUT", `/api/estates/${lease.estate_id}`, {
      body: { owner_id: lessor.json().id },
    });
    expect(estate.statusCode, estate.body).toBe(200);
    return lease;
  };
  /** The annexes due at signing of an unfurnished lease of an estate with no construction date. */
  const attachMandatory = async (leaseId: string) => {
    const notice = await t.request("POST", `/api/leases/${leaseId}/annexes`, {
      body: { catalog_code: "NOTICE_INFORMATION" },
    });
    expect(notice.statusCode, notice.body).toBe(201);
    for (const [code, date] of [
      ["DPE", addMonths(today, -12)],
      ["ERP", addMonths(today, -1)],
      // No entry condition report: drawn up at the keys' handover, initiate does not need it.
    ])
      expect((await upload(leaseId, { catalog_code: code, document_date: date })).statusCode).toBe(201);
  };
  const contractPdf = async (leaseId: string) =>
    expect((await t.request("POST", `/api/leases/${leaseId}/pdf`)).statusCode).toBe(201);
  const readyLease = async (extra: { primary_lessee_id?: string; start_date?: string } = {}) => {
    const lease = await draftLease(extra);
    await attachMandatory(lease.id);
    await contractPdf(lease.id);
    return lease;
  };
  const initiate = (leaseId: string) => t.request("POST", `/api/leases/${leaseId}/signature/initiate`);
  const leaseStatus = async (leaseId: string) =>
    (await t.request("GET", `/api/leases/${leaseId}`)).json().status;
  const codeFor = async (email: string, after: number) => {
    const mail = await eventually(
      async () => smtp.accepted.slice(after).find((m) => m.to.includes(email)),
      (m) => m !== undefined,
    );
    const code = /: (\d{6})/.exec(decodedText(mail?.raw ?? ""))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    return code as string;
  };

  it("annexes: compliance lists what is missing with its article; attach-mandatory links the estate's records", async () => {
    const lease = await draftLease();
    const before = await t.request("GET", `/api/leases/${lease.id}/annexes/compliance`);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().status).toBe("NON_COMPLIANT");
    expect(
      before
        .json()
        .missing.map((m: { code: string }) => m.code)
        .sort(),
    ).toEqual(["DPE", "ERP", "NOTICE_INFORMATION"]);
    expect(before.json().missing[0].legal_reference).toMatch(/loi n° 89-462/);
    // Drawn up at the keys' handover (art. 3-2): due then, never missing at signing.
    expect(before.json().due_at_handover.map((m: { code: string }) => m.code)).toEqual([
      "ENTRY_CONDITION_REPORT",
    ]);

    // The estate's DPE and risk report, linked by attach-mandatory with the shipped notice, once
    // each has its file: a record without its file is a missing annex, never a summary.
    const dpe = await recordDpe(lease.estate_id, {
      energy_consumption: 212.4,
      ges_emission: 18,
      heated_area: 40,
    });
    const [dpeFile, erpFile] = [await mediaOf(PDF, "dpe.pdf"), await mediaOf(PDF, "erp.pdf")];
    const erp = await t.request("POST", `/api/estates/${lease.estate_id}/diagnostics`, {
      body: { type: "risk_assessment", diagnosis_date: addMonths(today, -6), media_id: erpFile.id },
    });
    expect(erp.statusCode, erp.body).toBe(201);
    const bare = await t.request("POST", `/api/leases/${lease.id}/annexes/attach-mandatory`);
    expect(
      bare
        .json()
        .map((a: { code: string }) => a.code)
        .sort(),
    ).toEqual(["ERP", "NOTICE_INFORMATION"]);
    expect(bare.json().find((a: { code: string }) => a.code === "ERP")).toMatchObject({
      source: "ESTATE_DIAGNOSTIC",
      sha256: erpFile.sha256,
      filename: "erp.pdf",
    });
    const noFile = await t.request("POST", `/api/leases/${lease.id}/annexes`, {
      body: { catalog_code: "DPE" },
    });
    expect(noFile.statusCode, noFile.body).toBe(409);
    expect(noFile.json().message).toMatch(/has no file/);
    const withFile = await t.request("PUT", `/api/energy-diagnoses/${dpe.json().id}`, {
      body: { media_id: dpeFile.id },
    });
    expect(withFile.statusCode, withFile.body).toBe(200);
    const linked = await t.request("POST", `/api/leases/${lease.id}/annexes/attach-mandatory`);
    expect(linked.statusCode, linked.body).toBe(200);
    expect(
      linked
        .json()
        .map((a: { code: string }) => a.code)
        .sort(),
    ).toEqual(["DPE"]);
    // Each link binds the file uploaded with its record, with that file's hash.
    expect(linked.json().find((a: { code: string }) => a.code === "DPE")).toMatchObject({
      source: "DPE",
      sha256: dpeFile.sha256,
      filename: "dpe.pdf",
    });
    // Again: nothing more to link.
    expect((await t.request("POST", `/api/leases/${lease.id}/annexes/attach-mandatory`)).json()).toEqual([]);

    // An ERP made exactly six months ago is not "less than six months" old: expired.
    const after = (await t.request("GET", `/api/leases/${lease.id}/annexes/compliance`)).json();
    expect(after.missing).toEqual([]);
    expect(after.expired).toEqual([
      expect.objectContaining({ code: "ERP", valid_until: addDays(today, -1) }),
    ]);

    const report = await upload(lease.id, { catalog_code: "ENTRY_CONDITION_REPORT", document_date: today });
    expect(report.statusCode, report.body).toBe(201);
    expect(report.json()).toMatchObject({
      code: "ENTRY_CONDITION_REPORT",
      category: "USER_UPLOAD",
      size: PDF.length,
    });
    const fresh = await upload(lease.id, {
      catalog_code: "ERP",
      document_date: addDays(addMonths(today, -6), 1),
    });
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect((await t.request("GET", `/api/leases/${lease.id}/annexes/compliance`)).json().status).toBe(
      "COMPLIANT",
    );

    const list = (await t.request("GET", `/api/leases/${lease.id}/annexes`)).json();
    const notice = list.find((a: { code: string }) => a.code === "NOTICE_INFORMATION");
    const file = await t.request("GET", `/api/leases/${lease.id}/annexes/${notice.id}/download`);
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("application/pdf");
    const uploaded = await t.request("GET", `/api/leases/${lease.id}/annexes/${report.json().id}/download`);
    expect(uploaded.rawPayload.equals(PDF)).toBe(true);

    // The official notice uploaded binds that file, like any upload.
    const official = await upload(lease.id, { catalog_code: "NOTICE_INFORMATION" });
    expect(official.statusCode, official.body).toBe(201);
    expect(official.json()).toMatchObject({ code: "NOTICE_INFORMATION", source: "UPLOAD", size: PDF.length });

    // Bad input and another tenant's lease.
    const asUpload = await t.request("POST", `/api/leases/${lease.id}/annexes`, {
      body: { catalog_code: "ENTRY_CONDITION_REPORT" },
    });
    expect(asUpload.statusCode).toBe(400);
    expect(
      (await t.request("POST", `/api/leases/${lease.id}/annexes`, { body: { catalog_code: "X" } }))
        .statusCode,
    ).toBe(400);
    expect((await t.request("GET", `/api/leases/${lease.id}/annexes`, { as: t.other })).statusCode).toBe(404);
    expect((await upload(lease.id, { catalog_code: "ERP" }, t.other)).statusCode).toBe(404);
  });

  it("initiate: 402 when the balance is empty, 422 with the missing annexes; nothing changes", async () => {
    const lease = await readyLease();
    expect((await balance()).balance).toBe(0);
    const poor = await initiate(lease.id);
    expect(poor.statusCode, poor.body).toBe(402);
    expect(poor.json().error).toBe("PaymentRequired");
    await buyCredits();
    const bare = await draftLease();
    await contractPdf(bare.id);
    const missing = await initiate(bare.id);
    expect(missing.statusCode, missing.body).toBe(422);
    const fields = missing.json().details.map((d: { field: string }) => d.field);
    expect(fields).toContain("annexes.NOTICE_INFORMATION");
    expect(fields).not.toContain("annexes.ENTRY_CONDITION_REPORT");
    expect(await leaseStatus(bare.id)).toBe("DRAFT");
    expect((await t.request("GET", `/api/leases/${bare.id}/signature`)).statusCode).toBe(404);
    expect((await balance()).reserved).toBe(0);
  });

  it("codes: a new one only after 60 s, valid 10 minutes, the 5th wrong one locks the signatory", async () => {
    const lease = await readyLease();
    const started = await initiate(lease.id);
    expect(started.statusCode, started.body).toBe(201);
    expect(started.headers.location).toBe(`/api/leases/${lease.id}/signature`);
    expect(started.json().signatories.map((s: { role: string }) => s.role)).toEqual(["Primary", "Lessor"]);
    const [tenant, lessor] = started.json().signatories;
    const now = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now });
    const request = (signatory_id: string) =>
      t.request("POST", `/api/leases/${lease.id}/signature/request`, { body: { signatory_id } });
    const validate = (signatory_id: string, otp: string) =>
      t.request("POST", `/api/leases/${lease.id}/signature/validate`, { body: { signatory_id, otp } });

    expect((await request(tenant.signatory_id)).statusCode).toBe(200);
    vi.setSystemTime(now + 59_000);
    const early = await request(tenant.signatory_id);
    expect(early.statusCode, early.body).toBe(429);
    expect(early.json().message).toMatch(/60 seconds/);
    vi.setSystemTime(now + 60_000);
    const sentAt = smtp.accepted.length;
    expect((await request(tenant.signatory_id)).statusCode).toBe(200);
    const code = await codeFor(tenant.email, sentAt);
    // Valid until 10 minutes after it was sent, not a millisecond more.
    vi.setSystemTime(now + 60_000 + 10 * 60_000 + 1);
    const late = await validate(tenant.signatory_id, code);
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().message).toMatch(/expired/);

    expect((await request(lessor.signatory_id)).statusCode).toBe(200);
    // Each code's message names the person it goes to, so their erasure reaches it
    // (docs/personal-data.md): the lessee, or the estate's owner signing as lessor.
    const ownerId = (await t.request("GET", `/api/estates/${lease.estate_id}`)).json().owner_id;
    expect(ownerId).toMatch(/^[0-9a-f-]{36}$/);
    const store = t.app.platform.store;
    const sent = (await store.readStream(`lease_signing-${lease.id}`)).flatMap((e) =>
      e.type === "LeaseSignatureCodeSent" ? [e.data as { signatory_id: string; message_id: string }] : [],
    );
    const subjectsOf = async (signatoryId: string) => {
      const { message_id } = sent.filter((d) => d.signatory_id === signatoryId).at(-1)!;
      const [queued] = await store.readStream(`message-${message_id}`);
      return (queued.data as { data_subjects?: string[] }).data_subjects;
    };
    expect(await subjectsOf(tenant.signatory_id)).toEqual([`lessee-${tenant.lessee_id}`]);
    expect(await subjectsOf(lessor.signatory_id)).toEqual([`owner-${ownerId}`]);
    const wrong = (await codeFor(lessor.email, sentAt)) === "000000" ? "111111" : "000000";
    for (let attempt = 1; attempt <= 4; attempt++) {
      const res = await validate(lessor.signatory_id, wrong);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details).toEqual([
        { field: "otp", message: `Wrong code; ${5 - attempt} attempt(s) left` },
      ]);
    }
    const fifth = await validate(lessor.signatory_id, wrong);
    expect(fifth.statusCode, fifth.body).toBe(409);
    expect(fifth.json().message).toMatch(/locked/);
    const after = await validate(lessor.signatory_id, wrong);
    expect(after.statusCode).toBe(409);
    const state = (await t.request("GET", `/api/leases/${lease.id}/signature`)).json();
    expect(state.signatories[1]).toMatchObject({ status: "LOCKED", attempts: 5 });
    expect(
      (
        await t.request("POST", `/api/leases/${lease.id}/signature/request`, {
          body: { signatory_id: "nope" },
        })
      ).statusCode,
    ).toBe(400);
    vi.useRealTimers();
    const cancel = await t.request("POST", `/api/leases/${lease.id}/signature/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(200);
  });

  it("cancel ends the process: the lease back to DRAFT, the credit released", async () => {
    const lease = await readyLease();
    const before = await balance();
    expect((await initiate(lease.id)).statusCode).toBe(201);
    expect(await leaseStatus(lease.id)).toBe("PENDING_SIGNATURE");
    expect(await balance()).toMatchObject({ balance: before.balance - 1, reserved: 1 });
    const pending = (await t.request("GET", "/api/leases/pending-signature")).json();
    expect(pending.map((p: { lease_id: string }) => p.lease_id)).toContain(lease.id);
    const cancelled = await t.request("POST", `/api/leases/${lease.id}/signature/cancel`, {
      body: { reason: "Erreur de loyer" },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ status: "CANCELLED", end_cause: "CANCELLED" });
    expect(await leaseStatus(lease.id)).toBe("DRAFT");
    expect(await balance()).toMatchObject({ balance: before.balance, reserved: 0 });
    expect((await t.request("POST", `/api/leases/${lease.id}/signature/cancel`)).statusCode).toBe(409);
    // Another tenant's lease is unknown to the caller.
    expect(
      (await t.request("POST", `/api/leases/${lease.id}/signature/initiate`, { as: t.other })).statusCode,
    ).toBe(404);
    expect((await t.request("GET", `/api/leases/${lease.id}/signature`, { as: t.other })).statusCode).toBe(
      404,
    );
    const foreign = await t.request("POST", `/api/leases/${lease.id}/signature/cancel`, { as: t.other });
    expect(foreign.statusCode, foreign.body).toBe(404);
  });

  it("a change to the lease while it is being signed ends the process and releases the credit", async () => {
    const lease = await readyLease();
    const before = await balance();
    const started = await initiate(lease.id);
    expect(started.statusCode, started.body).toBe(201);
    const changed = await t.request("PUT", `/api/leases/${lease.id}`, { body: { rent_amount: 850 } });
    expect(changed.statusCode, changed.body).toBe(200);
    const ended = await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}/signature`)).json(),
      (s) => s.status === "CANCELLED",
    );
    expect(ended).toMatchObject({ end_cause: "LEASE_CHANGED" });
    expect(ended.end_reason).toMatch(/LeaseUpdated/);
    expect(await eventually(balance, (b) => b.reserved === 0)).toMatchObject({ balance: before.balance });
    // The lease's read model follows the loop's write a moment later (a loaded machine showed it).
    expect(
      await eventually(
        () => leaseStatus(lease.id),
        (s) => s === "DRAFT",
      ),
    ).toBe("DRAFT");
  });

  it("an initiation cut short after its reservation: the credit is released 10 minutes later", async () => {
    const lease = await readyLease();
    const before = await balance();
    const at = (minutesAgo: number) => ({
      store: t.app.platform.store,
      tenant_id: t.tenant.id,
      metadata: {
        tenant_id: t.tenant.id,
        actor_key_id: null,
        correlation_id: null,
        causation_id: null,
        occurred_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      },
    });
    const reserve = (minutesAgo: number) =>
      runCommand(at(minutesAgo), creditLedgerStream(t.tenant.id), creditDecider, {
        type: "ReserveCredits",
        reservation_id: randomUUID(),
        credits: 1,
        purpose: `lease_signature:${lease.id}`,
      });
    await reserve(9);
    await reserve(11);
    await eventually(balance, (b) => b.reserved === before.reserved + 2);
    const deps = { sql: t.sql, store: t.app.platform.store };
    expect(await releaseStrandedReservations(deps)).toBe(1);
    expect(await eventually(balance, (b) => b.reserved === before.reserved + 1)).toMatchObject({
      balance: before.balance - 1,
    });
    expect(await leaseStatus(lease.id)).toBe("DRAFT");
  });

  /** A lease from 2015 (with a co-tenant, if given), signed by all (user agent SignerAgent/7), ACTIVE. */
  const signedLease = async (lesseeId: string, coTenant?: string) => {
    const lease = await readyLease({ primary_lessee_id: lesseeId, start_date: "2015-01-01" });
    if (coTenant)
      expect(
        (
          await t.request("POST", `/api/leases/${lease.id}/lessees`, {
            body: { lessee_id: coTenant, role: "CoTenant" },
          })
        ).statusCode,
      ).toBe(201);
    // The contract of the lease as it now stands.
    if (coTenant) await contractPdf(lease.id);
    await buyCredits();
    const started = await initiate(lease.id);
    expect(started.statusCode, started.body).toBe(201);
    for (const s of started.json().signatories) {
      const sentAt = smtp.accepted.length;
      const path = `/api/leases/${lease.id}/signature`;
      expect(
        (await t.request("POST", `${path}/request`, { body: { signatory_id: s.signatory_id } })).statusCode,
      ).toBe(200);
      const otp = await codeFor(s.email, sentAt);
      const signed = await t.request("POST", `${path}/validate`, {
        body: { signatory_id: s.signatory_id, otp },
        headers: { "user-agent": "SignerAgent/7" },
      });
      expect(signed.statusCode, signed.body).toBe(200);
    }
    expect(await leaseStatus(lease.id)).toBe("ACTIVE");
    return lease;
  };
  /** Notice given in `year`-06-01, the lease TERMINATED on `year`-09-01. */
  const terminate = async (leaseId: string, year: number) => {
    for (const [status, extra] of [
      ["NOTICE", { effective_date: `${year}-06-01` }],
      ["FINALISATION", {}],
      ["TERMINATED", { effective_date: `${year}-09-01` }],
    ] as const)
      expect((await f.setStatus(leaseId, status, extra)).statusCode).toBe(200);
  };
  /** The same, over since 2019-09-01. */
  const signedPastLease = async (lesseeId: string) => {
    const lease = await signedLease(lesseeId);
    await terminate(lease.id, 2019);
    return lease;
  };

  it("erasing a signatory erases the lease signing's names, emails and steps, and its signed files", async () => {
    const lesseeId = await f.newLessee();
    const person = (await t.request("GET", `/api/lessees/${lesseeId}`)).json();
    const lease = await signedPastLease(lesseeId);
    const stored = async () =>
      JSON.stringify(
        await t.sql.query("SELECT data FROM events WHERE stream_name = $1", [`lease_signing-${lease.id}`]),
      );
    const secrets = [person.last_name, person.email, "SignerAgent/7", "bailleur@sci-dupont.fr", "SCI Dupont"];
    // Sealed in the log from the start, readable through the API.
    for (const secret of secrets) expect(await stored()).not.toContain(secret);
    const before = (await t.request("GET", `/api/leases/${lease.id}/signature`)).json();
    expect(before.signatories[0]).toMatchObject({ lessee_id: lesseeId, email: person.email });
    expect(before.erased_at).toBeNull();
    expect((await t.request("GET", `/api/leases/${lease.id}/signature/evidence`)).body).toContain(
      "SignerAgent/7",
    );

    // The lessee's export holds their own part of the process and the codes sent to them, no one else's.
    const exported = (await t.request("GET", `/api/lessees/${lesseeId}/export`)).json();
    expect(exported.signatures).toEqual([
      expect.objectContaining({
        lease_id: lease.id,
        role: "Primary",
        name: before.signatories[0].name,
        status: "SIGNED",
      }),
    ]);
    expect(exported.messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(exported)).not.toContain("bailleur@sci-dupont.fr");
    const contracts = (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json();
    expect(contracts.length).toBeGreaterThan(0);
    const cached = "SELECT count(*)::int AS n FROM pdf_render_cache WHERE subject_id = $1";
    expect((await t.sql.query(cached, [lease.id]))[0].n).toBe(1);

    const erased = await t.request("POST", `/api/lessees/${lesseeId}/erase`, { body: { reason: "asked" } });
    expect(erased.statusCode, erased.body).toBe(200);
    const after = await t.request("GET", `/api/leases/${lease.id}/signature`);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().erased_at).not.toBeNull();
    for (const s of after.json().signatories) expect(s).toMatchObject({ name: null, email: null });
    const exportedAfter = (await t.request("GET", `/api/lessees/${lesseeId}/export`)).json();
    expect(exportedAfter.signatures[0]).toMatchObject({ name: null, email: null, status: "SIGNED" });
    for (const m of exportedAfter.messages) expect(m.erased_at).not.toBeNull();
    // The rest of the process stands: who signed when, what was signed.
    expect(after.json()).toMatchObject({
      status: "COMPLETED",
      document_sha256: before.document_sha256,
      signed_pdf: before.signed_pdf,
    });
    expect(after.json().signatories.map((s: { signed_at: string }) => s.signed_at)).toEqual(
      before.signatories.map((s: { signed_at: string }) => s.signed_at),
    );
    // The signed lease and its evidence file printed them: gone.
    for (const file of ["document", "evidence"])
      expect((await t.request("GET", `/api/leases/${lease.id}/signature/${file}`)).statusCode).toBe(404);
    // The contract PDFs printed them too: deleted, and their render dropped.
    expect((await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json()).toEqual([]);
    for (const c of contracts)
      expect((await t.request("GET", `/api/leases/pdf/${c.id}`)).statusCode).toBe(404);
    expect((await t.sql.query(cached, [lease.id]))[0].n).toBe(0);
    // Replayed from the log: the same erased process.
    await rebuildProjection(t.sql, t.service.platform.store, leaseSignaturesProjection);
    expect((await t.request("GET", `/api/leases/${lease.id}/signature`)).json()).toEqual(after.json());
    const [key] = await t.sql.query("SELECT wrapped_key FROM personal_data_keys WHERE subject = $1", [
      `lease_signing-${lease.id}`,
    ]);
    expect(key.wrapped_key).toBeNull();
    // Again: nothing more appended.
    const count = (
      await t.sql.query("SELECT count(*)::int AS n FROM events WHERE stream_name = $1", [
        `lease_signing-${lease.id}`,
      ])
    )[0].n;
    expect(
      (await t.request("POST", `/api/lessees/${lesseeId}/erase`, { body: { reason: "again" } })).statusCode,
    ).toBe(200);
    expect(
      (
        await t.sql.query("SELECT count(*)::int AS n FROM events WHERE stream_name = $1", [
          `lease_signing-${lease.id}`,
        ])
      )[0].n,
    ).toBe(count);
  });

  it("erasing the owner who signed as lessor, once the estate is transferred, erases the lease signing", async () => {
    const lease = await signedPastLease(await f.newLessee());
    const lessorId = (await t.request("GET", `/api/estates/${lease.estate_id}`)).json().owner_id;
    const buyer = await t.request("POST", "/api/owners", {
      body: { category: "company", legal_name: "SCI Achat", email: "achat@sci-achat.fr" },
    });
    expect(buyer.statusCode, buyer.body).toBe(201);
    const sold = await t.request("PUT", `/api/estates/${lease.estate_id}`, {
      body: { owner_id: buyer.json().id },
    });
    expect(sold.statusCode, sold.body).toBe(200);
    expect((await t.request("GET", `/api/leases/${lease.id}/signature`)).json().signatories[1]).toMatchObject(
      {
        role: "Lessor",
        name: "SCI Dupont",
      },
    );

    // A PDF of the seller's lease generated before PDFs recorded their owner: found by the estate.
    const legacyPdf = randomUUID();
    const [model] = (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json();
    const { position } = await t.service.platform.store.appendToStream(
      `lease_pdf-${legacyPdf}`,
      [
        {
          event_id: randomUUID(),
          type: "LeaseContractPdfGenerated",
          data: {
            pdf_id: legacyPdf,
            lease_id: lease.id,
            template: model.template,
            template_version: model.template_version,
            lease_revision: model.lease_revision,
            contract_sha256: "legacy",
            filename: "legacy.pdf",
            size: model.size,
            sha256: model.sha256,
            blob_key: `tenants/${t.tenant.id}/lease-pdfs/${legacyPdf}`,
            from_cache: false,
          },
          metadata: {
            tenant_id: t.tenant.id,
            actor_key_id: null,
            correlation_id: null,
            causation_id: null,
            occurred_at: new Date().toISOString(),
          },
        },
      ],
      { expected_revision: "no_stream" },
    );
    expect(await t.service.platform.projections.waitFor(position!, 10_000)).toBe(true);
    const listed = (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json();
    expect(listed.map((p: { id: string }) => p.id)).toContain(legacyPdf);

    // The buyer's own lease of the estate, over long since: its contract names the buyer alone.
    const next = await f.newLease({ estate_id: lease.estate_id, start_date: "2020-01-01" });
    await contractPdf(next.id);
    expect(
      (await f.setStatus(next.id, "ACTIVE", { effective_date: "2020-01-01", reason: "signed" })).statusCode,
    ).toBe(200);
    await terminate(next.id, 2021);
    const buyersContracts = (await t.request("GET", `/api/leases/${next.id}/pdfs`)).json();
    expect(buyersContracts).toHaveLength(1);

    const erased = await t.request("POST", `/api/owners/${lessorId}/erase`, { body: { reason: "asked" } });
    expect(erased.statusCode, erased.body).toBe(200);
    const after = (await t.request("GET", `/api/leases/${lease.id}/signature`)).json();
    expect(after.erased_at).not.toBeNull();
    for (const s of after.signatories) expect(s).toMatchObject({ name: null, email: null });
    expect((await t.request("GET", `/api/leases/${lease.id}/signature/document`)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json()).toEqual([]);
    // Not the buyer's: it never named the seller.
    expect((await t.request("GET", `/api/leases/${next.id}/pdfs`)).json()).toEqual(buyersContracts);
    expect((await t.request("GET", `/api/leases/pdf/${buyersContracts[0].id}`)).statusCode).toBe(200);
  });

  it("a co-tenant erased after leaving: the lease's signing kept while it goes on, erased once it needs it no more", async () => {
    const [leaving, staying] = [await f.newLessee(), await f.newLessee()];
    const lease = await signedLease(leaving, staying);
    const path = `/api/leases/${lease.id}/lessees`;
    expect((await t.request("PUT", `${path}/${staying}`, { body: { role: "Primary" } })).statusCode).toBe(
      200,
    );
    const left = await t.request("PUT", `${path}/${leaving}/end`, { body: { end_date: "2019-06-30" } });
    expect(left.statusCode, left.body).toBe(200);
    const before = (await t.request("GET", `/api/leases/${lease.id}/signature`)).json();
    expect(before.signatories).toHaveLength(3);

    const erased = await t.request("POST", `/api/lessees/${leaving}/erase`, { body: { reason: "asked" } });
    expect(erased.statusCode, erased.body).toBe(200);
    // The lease is in progress: its signed contract, evidence and PDFs are kept (RGPD art. 17(3)(e)).
    expect((await t.request("GET", `/api/leases/${lease.id}/signature`)).json()).toEqual(before);
    for (const file of ["document", "evidence"])
      expect((await t.request("GET", `/api/leases/${lease.id}/signature/${file}`)).statusCode).toBe(200);
    expect((await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json()).not.toEqual([]);
    const rerun = () =>
      eraseKeptMentions(t.service.platform, t.tenant.id, () => ({
        actor_key_id: null,
        correlation_id: "retention",
        causation_id: null,
        occurred_at: new Date().toISOString(),
      }));
    await rerun();
    expect((await t.request("GET", `/api/leases/${lease.id}/signature`)).json()).toEqual(before);
    // Deleted once erased: no lessee row is left to find it by, the register of erasures still does.
    const deleted = await t.request("DELETE", `/api/lessees/${leaving}`);
    expect(deleted.statusCode, deleted.body).toBe(204);

    // Over since 2020, its actions prescribed in 2023: the retention job's rerun lets them go.
    await terminate(lease.id, 2020);
    expect(await rerun()).toBeGreaterThan(0);
    await eventually(
      async () => (await t.request("GET", `/api/leases/${lease.id}/signature`)).json(),
      (s) => s.erased_at !== null,
    );
    const after = (await t.request("GET", `/api/leases/${lease.id}/signature`)).json();
    for (const s of after.signatories) expect(s).toMatchObject({ name: null, email: null });
    expect((await t.request("GET", `/api/leases/${lease.id}/signature/evidence`)).statusCode).toBe(404);
    expect(
      await eventually(
        async () => (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json(),
        (pdfs) => pdfs.length === 0,
      ),
    ).toEqual([]);
  });

  it("end to end: from a DRAFT lease to a signed ACTIVE one, the lessee signing with their own token", async () => {
    const hook = await t.request("POST", "/api/webhook-subscriptions", {
      body: { url: "http://127.0.0.1:9/hooks", events: ["signature.completed"] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const sub = "signer-1";
    const lessee = await f.lesseeToken(idp, sub, SCOPES);
    const lesseeId = await f.lesseeOf(sub);
    // The estate's DPE and risk report, each with its own file; no contract printed beforehand.
    const lease = await draftLease({ primary_lessee_id: lesseeId });
    const dpeFile = await mediaOf(await textPdf("RAPPORT DPE 2401E0000042X"), "dpe.pdf");
    const erpFile = await mediaOf(await textPdf("ETAT DES RISQUES ERP 2026"), "erp.pdf");
    await recordDpe(lease.estate_id, { media_id: dpeFile.id });
    const erp = await t.request("POST", `/api/estates/${lease.estate_id}/diagnostics`, {
      body: { type: "risk_assessment", diagnosis_date: addMonths(today, -1), media_id: erpFile.id },
    });
    expect(erp.statusCode, erp.body).toBe(201);
    expect((await t.request("POST", `/api/leases/${lease.id}/annexes/attach-mandatory`)).statusCode).toBe(
      200,
    );
    expect(
      (await upload(lease.id, { catalog_code: "ENTRY_CONDITION_REPORT", document_date: today })).statusCode,
    ).toBe(201);
    expect((await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json()).toEqual([]);
    const before = await balance();
    const started = await initiate(lease.id);
    expect(started.statusCode, started.body).toBe(201);
    // Initiation printed the contract of the lease's current version, and that is what is signed.
    const printed = (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json();
    expect(printed).toHaveLength(1);
    expect(started.json().contract).toEqual({
      pdf_id: printed[0].id,
      sha256: printed[0].sha256,
      filename: printed[0].filename,
    });
    expect(started.json().annexes.map((a: { sha256: string }) => a.sha256)).toEqual(
      expect.arrayContaining([dpeFile.sha256, erpFile.sha256]),
    );
    expect(started.json().signature_level).toBe("SIMPLE");
    const [mine, lessor] = started.json().signatories;

    // The lessee signs in their own space, only as themself.
    const own = `/api/lessee/leases/${lease.id}/signature`;
    const notMine = await t.request("POST", `${own}/request`, {
      body: { signatory_id: lessor.signatory_id },
      as: lessee,
    });
    expect(notMine.statusCode, notMine.body).toBe(403);
    const stranger = await f.lesseeToken(idp, "stranger-1", SCOPES);
    await f.lesseeOf("stranger-1");
    const theirs = await t.request("POST", `${own}/request`, {
      body: { signatory_id: mine.signatory_id },
      as: stranger,
    });
    expect(theirs.statusCode, theirs.body).toBe(404);
    const readOnly = await f.lesseeToken(idp, sub);
    expect(
      (await t.request("POST", `${own}/request`, { body: { signatory_id: mine.signatory_id }, as: readOnly }))
        .statusCode,
    ).toBe(403);
    let sentAt = smtp.accepted.length;
    const asked = await t.request("POST", `${own}/request`, {
      body: { signatory_id: mine.signatory_id },
      as: lessee,
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const signed = await t.request("POST", `${own}/validate`, {
      body: { signatory_id: mine.signatory_id, otp: await codeFor(mine.email, sentAt) },
      as: lessee,
      headers: { "user-agent": "Firefox/140" },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json().signatories[0].status).toBe("SIGNED");
    const seen = await t.request("GET", own, { as: readOnly });
    expect(seen.statusCode, seen.body).toBe(200);
    expect(seen.json()).toMatchObject({ status: "PENDING", signature_level: "SIMPLE" });
    expect(seen.json().signatories.map((s: { email: string | null }) => s.email)).toEqual([null, null]);

    // The lessor signs through the API.
    sentAt = smtp.accepted.length;
    expect(
      (
        await t.request("POST", `/api/leases/${lease.id}/signature/request`, {
          body: { signatory_id: lessor.signatory_id },
        })
      ).statusCode,
    ).toBe(200);
    const done = await t.request("POST", `/api/leases/${lease.id}/signature/validate`, {
      body: { signatory_id: lessor.signatory_id, otp: await codeFor("bailleur@sci-dupont.fr", sentAt) },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().status).toBe("COMPLETED");
    expect(await leaseStatus(lease.id)).toBe("ACTIVE");
    expect(await balance()).toMatchObject({ balance: before.balance - 1, reserved: before.reserved });

    const pdf = await t.request("GET", `/api/lessee/leases/${lease.id}/signature/document`, {
      as: await f.lesseeToken(idp, sub, "lessee:leases:download"),
    });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
    expect(createHash("sha256").update(pdf.rawPayload).digest("hex")).toBe(done.json().signed_pdf.sha256);
    // The signed PDF binds the contract's own pages after the certificate, then the annexes'.
    const contractRow = (await t.request("GET", `/api/leases/${lease.id}/pdfs`)).json().at(-1);
    const contractBytes = (await t.request("GET", `/api/leases/pdf/${contractRow.id}`)).rawPayload;
    const contractPages = (await PDFDocument.load(contractBytes)).getPageCount();
    const signedPages = (await PDFDocument.load(pdf.rawPayload)).getPageCount();
    expect(signedPages).toBeGreaterThan(contractPages + 1);
    // It binds the files uploaded with the DPE and the risk report themselves, and its certificate
    // names each file's hash, in French, with Paris times, no code, no id, no "---" rows.
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain("RAPPORT DPE 2401E0000042X");
    expect(text).toContain("ETAT DES RISQUES ERP 2026");
    expect(text).not.toMatch(/Enregistrement (DPE|ESTATE_DIAGNOSTIC)/);
    // The certificate comes first and ends with its legal standing.
    const certificate = text.slice(0, text.indexOf("910/2014") + 8);
    expect(certificate).toContain("Certificat de signature électronique");
    for (const hash of [done.json().document_sha256, printed[0].sha256, dpeFile.sha256, erpFile.sha256])
      expect(certificate).toContain(hash);
    expect(certificate).toMatch(/Locataire : /);
    expect(certificate).toMatch(/Bailleur : SCI Dupont/);
    expect(certificate).toMatch(
      /signé le (1er|[12]?\d|3[01]) (janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre) \d{4} à \d{1,2} h \d{2} \(heure de Paris\)/,
    );
    expect(certificate).toContain("Diagnostic de performance");
    expect(certificate).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(certificate).not.toMatch(/---|Primary|Lessor|lessee_space|\bDPE\b.*ESTATE_DIAGNOSTIC/);
    const evidence = await t.request("GET", `/api/leases/${lease.id}/signature/evidence`);
    expect(evidence.statusCode).toBe(200);
    const file = JSON.parse(evidence.body);
    expect(file.signature_level).toBe("SIMPLE");
    expect(file.steps.map((s: { step: string }) => s.step)).toEqual([
      "INITIATED",
      "CODE_SENT",
      "SIGNED",
      "CODE_SENT",
      "SIGNED",
    ]);
    expect(file.steps[2]).toMatchObject({
      channel: "lessee_space",
      user_agent: "Firefox/140",
      document_sha256: done.json().document_sha256,
    });
    expect(file.steps[2].ip).toBeTruthy();
    const deliveries = await t.sql.query(
      "SELECT payload FROM webhook_deliveries WHERE subscription_id = $1 AND event_type = 'signature.completed'",
      [hook.json().id],
    );
    expect(deliveries.map((d) => (d.payload as { data: { lease_id: string } }).data.lease_id)).toContain(
      lease.id,
    );
    // Done is done.
    expect((await t.request("POST", `/api/leases/${lease.id}/signature/cancel`)).statusCode).toBe(409);
  });
});
