import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { leasesProjection } from "../../src/projections/leases.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** Documents of an amendment (issue 24, docs/leases.md "Documents of an amendment"). */

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(512, 7), Buffer.from("\n%%EOF\n")]);

/** A multipart body: text fields, then a PDF file part. */
const form = (fields: Record<string, string>) =>
  multipartForm(fields, { content: PDF, filename: "avenant.pdf", type: "application/pdf" });

describe.each(databaseKinds)("documents of an amendment on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, writesNothing } = leaseFixtures(() => t);
  const upload = (leaseId: string, fields: Record<string, string>) => {
    const body = form(fields);
    return t.app.inject({
      method: "POST",
      url: `/api/leases/${leaseId}/documents`,
      payload: body.payload,
      headers: { "content-type": body.type, authorization: `Bearer ${t.tenant.key}` },
    });
  };
  const draftAmendment = async (leaseId: string) => {
    const res = await t.request("POST", `/api/leases/${leaseId}/amendments`, {
      body: { title: "Avenant 1", effective_date: "2025-06-01", changes: { special_conditions: "Jardin" } },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const blobCount = async () => Number((await t.sql.query("SELECT count(*)::int AS n FROM blobs"))[0].n);

  it("attaches a document to an amendment, lists it with the amendment, filters the lease's documents by it", async () => {
    const { id } = await newLease();
    const amendmentId = await draftAmendment(id);
    const own = await upload(id, { document_type: "BAIL" });
    expect(own.statusCode, own.body).toBe(201);
    expect(own.json().amendment_id).toBeNull();
    const res = await upload(id, { document_type: "AVENANT", amendment_id: amendmentId.toUpperCase() });
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json();
    expect(doc).toMatchObject({ lease_id: id, amendment_id: amendmentId, document_type: "AVENANT" });

    const amendment = await t.request("GET", `/api/leases/${id}/amendments/${amendmentId}`);
    expect(amendment.statusCode).toBe(200);
    expect(amendment.json().documents).toEqual([doc]);
    const [listed] = (await t.request("GET", `/api/leases/${id}/amendments`)).json();
    expect(listed.documents).toEqual([doc]);

    const all = (await t.request("GET", `/api/leases/${id}/documents`)).json();
    expect(all.map((d: { id: string }) => d.id)).toEqual([own.json().id, doc.id]);
    const ofAmendment = await t.request("GET", `/api/leases/${id}/documents?amendment_id=${amendmentId}`);
    expect(ofAmendment.json()).toEqual([doc]);
    // A PUT may send back what the GET showed: the attachment is kept.
    const put = await t.request("PUT", `/api/leases/${id}/documents/${doc.id}`, {
      body: { ...doc, id: undefined, created_at: undefined, updated_at: undefined, description: "Signé" },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ amendment_id: amendmentId, description: "Signé" });
    expect((await t.request("GET", `/api/leases/${id}/documents?amendment_id=nope`)).statusCode).toBe(400);
  });

  it("refuses an unknown amendment or another lease's (400), storing nothing", async () => {
    const { id } = await newLease();
    const other = await newLease();
    const othersAmendment = await draftAmendment(other.id);
    const before = await blobCount();
    await writesNothing(async () => {
      for (const amendment_id of [othersAmendment, "7c1e0000-0000-4000-8000-00000000dead"]) {
        const res = await upload(id, { document_type: "AVENANT", amendment_id });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().details).toEqual([
          { field: "amendment_id", message: `Amendment ${amendment_id} is not an amendment of lease ${id}` },
        ]);
      }
      const malformed = await upload(id, { document_type: "AVENANT", amendment_id: "avenant-1" });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().details.map((d: { field: string }) => d.field)).toEqual(["amendment_id"]);
    });
    expect(await blobCount()).toBe(before);
  });

  it("keeps a draft amendment with documents (409) until they are deleted", async () => {
    const { id } = await newLease();
    const amendmentId = await draftAmendment(id);
    const doc = (await upload(id, { document_type: "AVENANT", amendment_id: amendmentId })).json();
    const url = `/api/leases/${id}/amendments/${amendmentId}`;
    const refused = await t.request("DELETE", url);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().message).toContain(doc.id);
    expect((await t.request("DELETE", `/api/leases/${id}/documents/${doc.id}`)).statusCode).toBe(204);
    expect((await t.request("DELETE", url)).statusCode).toBe(204);
  });

  it("rebuilds the documents with their amendment from the log", async () => {
    const { id } = await newLease();
    const amendmentId = await draftAmendment(id);
    await upload(id, { document_type: "AVENANT", amendment_id: amendmentId });
    await upload(id, { document_type: "BAIL" });
    const rows = async () =>
      (
        await t.sql.query("SELECT * FROM lease_documents WHERE lease_id = $1 ORDER BY created_at, id", [id])
      ).map((r) => JSON.stringify(r));
    const before = await rows();
    expect(before.filter((r) => r.includes(amendmentId))).toHaveLength(1);
    await rebuildProjection(t.sql, t.service.platform.store, leasesProjection);
    expect(await rows()).toEqual(before);
  });
});
