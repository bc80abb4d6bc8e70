import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { eventually } from "../support/eventually.ts";
import type { TestProvider } from "../support/identityProvider.ts";
import { type LesseeSpace, lesseeSpaceFixtures, startLesseeSpace } from "../support/lesseeSpace.ts";
import { multipartForm } from "../support/multipart.ts";
import { pdfText } from "../support/pdfText.ts";
import type { TestApp, TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The lessee's own documents (docs/portal.md, docs/documents.md): the contract, the annexes, the
 * condition reports and each avis d'échéance, read with a lessee token (`lessee:leases:download`
 * for the files) and the very bytes the staff gets. What each document says is tested with its
 * own route (leases.pdfs, signing, moving, rentCycle tests).
 */

const DOWNLOAD = "lessee:leases:read lessee:leases:download";
const UPLOADED = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(512, 3), Buffer.from("\n%%EOF\n")]);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.each(databaseKinds)("the lessee's documents on %s", (kind) => {
  let space: LesseeSpace;
  let t: TestApp;
  let idp: TestProvider;
  const { leaseOfLessee, lesseeToken, setStatus } = lesseeSpaceFixtures(() => t);

  beforeAll(async () => {
    space = await startLesseeSpace(kind);
    ({ t, idp } = space);
  });
  afterAll(async () => {
    await space?.close();
  });

  const newSub = () => `lessee-${crypto.randomUUID()}`;

  /** A lease of `sub` with its contract printed, the notice and an uploaded annex, an entry report and a call. */
  const leaseWithDocuments = async (sub: string) => {
    const id = await leaseOfLessee(sub, undefined, { start_date: "2027-01-01" });
    const pdf = await t.request("POST", `/api/leases/${id}/pdf`);
    expect(pdf.statusCode, pdf.body).toBe(201);
    const notice = await t.request("POST", `/api/leases/${id}/annexes`, {
      body: { catalog_code: "NOTICE_INFORMATION" },
    });
    expect(notice.statusCode, notice.body).toBe(201);
    const form = multipartForm(
      { catalog_code: "OTHER" },
      { content: UPLOADED, filename: "reglement-copropriete.pdf", type: "application/pdf" },
    );
    const upload = await t.app.inject({
      method: "POST",
      url: `/api/leases/${id}/annexes`,
      payload: form.payload,
      headers: { "content-type": form.type, authorization: `Bearer ${t.tenant.key}` },
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const report = await t.request("POST", `/api/leases/${id}/condition-reports`, {
      body: {
        type: "ENTRY",
        date: "2027-01-01",
        rooms: [{ name: "Séjour", elements: [{ element: "Sol", condition: "GOOD" }] }],
        meter_readings: [{ kind: "Électricité", value: 12034.5 }],
        keys: [{ kind: "Porte d'entrée", count: 2 }],
      },
    });
    expect(report.statusCode, report.body).toBe(201);
    const active = await setStatus(id, "ACTIVE");
    expect(active.statusCode, active.body).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2027-01-10", tenantId: t.tenant.id },
    );
    const calls = await eventually(
      async () => (await t.request("GET", `/api/leases/${id}/rent-calls`)).json() as { id: string }[],
      (found) => found.length === 1,
    );
    return {
      id,
      contract: pdf.json() as { id: string; filename: string },
      notice: notice.json() as { id: string },
      upload: upload.json() as { id: string },
      report: report.json() as { id: string },
      call: calls[0].id,
    };
  };

  const get = (url: string, as: TestTenant) => t.request("GET", url, { as });

  it("reads its contract, annexes, condition report and avis: the staff's very files", async () => {
    const sub = newSub();
    const docs = await leaseWithDocuments(sub);
    const token = await lesseeToken(idp, sub, DOWNLOAD);
    const base = `/api/lessee/leases/${docs.id}`;

    const contract = await get(`${base}/contract`, token);
    expect(contract.statusCode, contract.body).toBe(200);
    expect(contract.headers["content-type"]).toBe("application/pdf");
    expect(contract.headers["content-disposition"]).toContain(docs.contract.filename);
    const staffContract = await t.request("GET", `/api/leases/pdf/${docs.contract.id}`);
    expect(sha256(contract.rawPayload)).toBe(sha256(staffContract.rawPayload));
    expect(await pdfText(contract.rawPayload)).toContain("Camille Durand");

    const annexes = await get(`${base}/annexes`, token);
    expect(annexes.statusCode, annexes.body).toBe(200);
    expect(annexes.json()).toEqual((await t.request("GET", `/api/leases/${docs.id}/annexes`)).json());
    expect(annexes.json().map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining([docs.notice.id, docs.upload.id]),
    );
    const uploaded = await get(`${base}/annexes/${docs.upload.id}/download`, token);
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(sha256(uploaded.rawPayload)).toBe(sha256(UPLOADED));
    const notice = await get(`${base}/annexes/${docs.notice.id}/download`, token);
    expect(notice.statusCode, notice.body).toBe(200);
    expect(await pdfText(notice.rawPayload)).toContain("arrêté du 29 mai 2015");

    const report = await get(`${base}/condition-reports/${docs.report.id}/pdf`, token);
    expect(report.statusCode, report.body).toBe(200);
    const reportText = await pdfText(report.rawPayload);
    expect(reportText).toContain("État des lieux d'entrée");
    expect(reportText).toContain("Porte d'entrée");
    expect(reportText).toContain("Camille Durand");

    const avis = await get(`${base}/rent-calls/${docs.call}/notice`, token);
    expect(avis.statusCode, avis.body).toBe(200);
    expect(avis.headers["content-type"]).toBe("application/pdf");
    const avisText = await pdfText(avis.rawPayload);
    expect(avisText).toContain("Avis d'échéance");
    expect(avisText).toContain("850,00 €");
    const staffAvis = await t.request("GET", `/api/leases/${docs.id}/rent-calls/${docs.call}/notice`);
    expect(avisText).toBe(await pdfText(staffAvis.rawPayload));
  });

  it("another lessee's lease answers 404; an unknown report, annex or call of its own too", async () => {
    const sub = newSub();
    const mine = await leaseWithDocuments(sub);
    const theirs = await leaseWithDocuments(newSub());
    const token = await lesseeToken(idp, sub, DOWNLOAD);
    for (const url of [
      `/api/lessee/leases/${theirs.id}/contract`,
      `/api/lessee/leases/${theirs.id}/annexes`,
      `/api/lessee/leases/${theirs.id}/annexes/${theirs.upload.id}/download`,
      `/api/lessee/leases/${theirs.id}/condition-reports/${theirs.report.id}/pdf`,
      `/api/lessee/leases/${theirs.id}/rent-calls/${theirs.call}/notice`,
    ]) {
      const res = await get(url, token);
      expect(res.statusCode, `${url} ${res.body}`).toBe(404);
      expect(res.json()).toEqual({ error: "NotFound", message: `Lease ${theirs.id} not found` });
    }
    // Their report, annex or call asked under my lease: none of my lease's.
    for (const url of [
      `/api/lessee/leases/${mine.id}/annexes/${theirs.upload.id}/download`,
      `/api/lessee/leases/${mine.id}/condition-reports/${theirs.report.id}/pdf`,
      `/api/lessee/leases/${mine.id}/rent-calls/${theirs.call}/notice`,
    ]) {
      const res = await get(url, token);
      expect(res.statusCode, `${url} ${res.body}`).toBe(404);
      expect(res.json().message).not.toContain(mine.id);
    }
  });

  it("a lease without a printed contract answers 404 for it", async () => {
    const sub = newSub();
    const id = await leaseOfLessee(sub);
    const res = await get(`/api/lessee/leases/${id}/contract`, await lesseeToken(idp, sub, DOWNLOAD));
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json()).toEqual({ error: "NotFound", message: `Contract of lease ${id} not found` });
  });

  it("the files need lessee:leases:download (403 with read alone); no credential 401", async () => {
    const sub = newSub();
    const docs = await leaseWithDocuments(sub);
    const base = `/api/lessee/leases/${docs.id}`;
    const readOnly = await lesseeToken(idp, sub, "lessee:leases:read");
    for (const url of [
      `${base}/contract`,
      `${base}/annexes/${docs.upload.id}/download`,
      `${base}/condition-reports/${docs.report.id}/pdf`,
      `${base}/rent-calls/${docs.call}/notice`,
    ]) {
      const res = await get(url, readOnly);
      expect(res.statusCode, `${url} ${res.body}`).toBe(403);
      expect(res.json()).toEqual({
        error: "Forbidden",
        message: "This token lacks the lessee:leases:download scope",
      });
      expect((await t.request("GET", url, { as: null })).statusCode).toBe(401);
      expect((await t.request("GET", url)).statusCode, url).toBe(403);
    }
    // The list of annexes is read with the read scope, as the lease is.
    expect((await get(`${base}/annexes`, readOnly)).statusCode).toBe(200);
  });
});
