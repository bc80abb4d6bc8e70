import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(2048, 7), Buffer.from("\n%%EOF\n")]);

describe.each(databaseKinds)("lease documents API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, writesNothing } = leaseFixtures(() => t);
  const upload = (leaseId: string, body: { payload: Buffer; type: string }, key = t.tenant.key) =>
    t.app.inject({
      method: "POST",
      url: `/api/leases/${leaseId}/documents`,
      payload: body.payload,
      headers: { "content-type": body.type, authorization: `Bearer ${key}` },
    });

  it("uploads, reads metadata and bytes, updates and deletes a document, keeping its events", async () => {
    const { id } = await newLease();
    const res = await upload(
      id,
      multipartForm(
        { document_type: "ETAT_DES_LIEUX", description: "Entrée" },
        { content: PDF, filename: "edl.pdf", type: "application/pdf" },
      ),
    );
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json();
    expect(doc).toMatchObject({
      lease_id: id,
      document_type: "ETAT_DES_LIEUX",
      description: "Entrée",
      filename: "edl.pdf",
      content_type: "application/pdf",
      size: PDF.length,
      sha256: createHash("sha256").update(PDF).digest("hex"),
    });
    const url = `/api/leases/${id}/documents/${doc.id}`;
    expect(res.headers.location).toBe(url);
    const file = await t.request("GET", `${url}/file`);
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("application/pdf");
    expect(file.rawPayload.equals(PDF)).toBe(true);
    expect((await t.request("GET", `${url}/file`, { as: t.other })).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${id}/documents`)).json()).toHaveLength(1);
    const put = await t.request("PUT", url, { body: { description: null, document_type: "BAIL" } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ document_type: "BAIL", description: null });
    expect((await t.request("PUT", url, { body: { document_type: "" } })).statusCode).toBe(400);
    expect((await t.request("DELETE", url)).statusCode).toBe(204);
    expect((await t.request("GET", url)).statusCode).toBe(404);
    const history = (await t.request("GET", `/api/leases/${id}/history`)).json();
    expect(history.map((e: { type: string }) => e.type)).toContain("LeaseDocumentDeleted");
    expect(history.map((e: { type: string }) => e.type)).toContain("LeaseDocumentAdded");
  });

  it("refuses bad uploads (400, 415, 413, 404) and writes nothing", async () => {
    const { id } = await newLease();
    const blobCount = async () => Number((await t.sql.query("SELECT count(*)::int AS n FROM blobs"))[0].n);
    const blobsBefore = await blobCount();
    await writesNothing(async () => {
      expect((await upload(id, multipartForm({ document_type: "BAIL" }))).statusCode).toBe(400);
      const noType = await upload(
        id,
        multipartForm({}, { content: PDF, filename: "a.pdf", type: "application/pdf" }),
      );
      expect(noType.statusCode).toBe(400);
      expect(noType.json().details.map((d: { field: string }) => d.field)).toContain("document_type");
      const exe = await upload(
        id,
        multipartForm(
          { document_type: "BAIL" },
          { content: Buffer.from("MZ\x90\x00"), filename: "a.exe", type: "application/octet-stream" },
        ),
      );
      expect(exe.statusCode).toBe(415);
      const big = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(21 * 1024 * 1024)]);
      const tooBig = await upload(
        id,
        multipartForm(
          { document_type: "BAIL" },
          { content: big, filename: "b.pdf", type: "application/pdf" },
        ),
      );
      expect(tooBig.statusCode).toBe(413);
      expect(tooBig.json()).toMatchObject({ error: "PayloadTooLarge" });
      const unknownLease = await upload(
        "00000000-0000-4000-8000-000000000000",
        multipartForm(
          { document_type: "BAIL" },
          { content: PDF, filename: "a.pdf", type: "application/pdf" },
        ),
      );
      expect(unknownLease.statusCode).toBe(404);
      // the file before the fields: streamed first, removed when the fields are refused
      const fileFirst = multipartForm({}, { content: PDF, filename: "a.pdf", type: "application/pdf" });
      expect((await upload(id, fileFirst)).statusCode).toBe(400);
      const foreign = await upload(
        id,
        multipartForm(
          { document_type: "BAIL" },
          { content: PDF, filename: "a.pdf", type: "application/pdf" },
        ),
        t.other.key,
      );
      expect(foreign.statusCode).toBe(404);
      const json = await t.request("POST", `/api/leases/${id}/documents`, {
        body: { document_type: "BAIL" },
      });
      expect(json.statusCode).toBe(415);
    });
    expect(await blobCount()).toBe(blobsBefore);
    expect((await t.sql.query("SELECT count(*)::int AS n FROM blob_parts"))[0].n).toBe(0);
  });

  it("streams a file of several MiB to the store: sha256, size and bytes round-trip", async () => {
    const { id } = await newLease();
    const content = Buffer.concat([Buffer.from("%PDF-1.4\n"), randomBytes(5 * 1024 * 1024 + 3)]);
    const res = await upload(
      id,
      multipartForm(
        { document_type: "BAIL" },
        { content, filename: "bail.pdf", type: "application/octet-stream" },
      ),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      content_type: "application/pdf",
      size: content.length,
      sha256: createHash("sha256").update(content).digest("hex"),
    });
    const file = await t.request("GET", `/api/leases/${id}/documents/${res.json().id}/file`);
    expect(file.rawPayload.equals(content)).toBe(true);
  });
});
