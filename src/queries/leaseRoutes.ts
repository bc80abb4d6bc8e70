import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leaseStream } from "../events/leases.ts";
import { blobKey, blobStoreFor } from "../platform/blobs/index.ts";
import { notFound, validationError } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { readHistory } from "../platform/http/handleCommand.ts";
import { pageQuery, sendPage, sendSlice } from "../platform/http/pagination.ts";
import { answers, fileBytes, historyBody } from "../platform/http/responses.ts";
import { isoTimestamp, uuid } from "../platform/http/schemas.ts";
import { readEstate } from "./estates.ts";
import {
  amendmentBody,
  amendmentParams,
  associationBody,
  associationParams,
  documentBody,
  documentParams,
  leaseAnswer,
  leaseBody,
  leaseParams,
  rentChangeBody,
} from "./leaseBodies.ts";
import { leaseAsOf } from "./leaseReplay.ts";
import {
  listAmendments,
  listAssociations,
  listDocuments,
  listLeases,
  listQuery,
  listRentChanges,
  readAmendment,
  readAssociation,
  readDocument,
  requireLease,
} from "./leases.ts";

/** GET routes of the Leases area, one group per concern. */

const tags = ["Leases"];
const read = { access: "LeasesRead" as const };

const asOfQuery = z.strictObject({
  as_of: z
    .string()
    .optional()
    .meta({
      description: "An instant (ISO 8601) or a date (YYYY-MM-DD)",
      anyOf: [{ format: "date-time" }, { format: "date" }],
      example: "2025-01-31T12:00:00Z",
    }),
});

function checkAsOf(asOf: string | undefined) {
  if (asOf !== undefined && !isoTimestamp.safeParse(asOf).success)
    throw validationError("Invalid query", [{ field: "as_of", message: "Must be an ISO 8601 timestamp" }]);
}

/** The lease lists: the tenant's (with filters), an estate's. */
function listRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases",
    {
      schema: { tags, summary: "List leases", querystring: listQuery, response: answers(z.array(leaseBody)) },
      config: read,
    },
    async (request, reply) =>
      sendPage(request, reply, await listLeases(sql, tenantOf(request), request.query)),
  );
  api.get(
    "/api/leases/estate/:estate_id",
    {
      schema: {
        tags,
        summary: "Leases of an estate",
        params: z.strictObject({ estate_id: uuid() }),
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(leaseBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { estate_id } = request.params;
      if (!(await readEstate(sql, tenantId, estate_id))) throw notFound("Estate", estate_id);
      return sendPage(request, reply, await listLeases(sql, tenantId, { ...request.query, estate_id }));
    },
  );
}

/** One lease, now or `as_of`, and its history. */
function leaseRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases/:lease_id",
    {
      schema: {
        tags,
        summary: "A lease; with as_of, the lease as it stood then, replayed from its events",
        params: leaseParams,
        querystring: asOfQuery,
        response: answers(leaseAnswer),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const asOf = request.query.as_of;
      checkAsOf(asOf);
      const found =
        asOf !== undefined
          ? await leaseAsOf(request, lease_id, asOf)
          : await requireLease(sql, tenantOf(request), lease_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
  api.get(
    "/api/leases/:lease_id/history",
    {
      schema: {
        tags,
        summary: "The lease's events in order (audit)",
        params: leaseParams,
        querystring: z.strictObject(pageQuery),
        response: answers(historyBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const events = await readHistory(request, leaseStream(lease_id), () => notFound("Lease", lease_id));
      return sendSlice(request, reply, events, request.query);
    },
  );
}

/** A lease's tenants. */
function tenantRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const list = (summary: string, path: string, activeOnly: boolean) =>
    api.get(
      path,
      {
        schema: { tags, summary, params: leaseParams, response: answers(z.array(associationBody)) },
        config: read,
      },
      async (request) => listAssociations(sql, tenantOf(request), request.params.lease_id, activeOnly),
    );
  list("Tenants of a lease (every term)", "/api/leases/:lease_id/lessees", false);
  list("Tenants of a lease whose term has not ended", "/api/leases/:lease_id/lessees/active", true);
  api.get(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "One tenant of a lease",
        params: associationParams,
        response: answers(associationBody),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, lessee_id } = request.params;
      await requireLease(sql, tenantId, lease_id);
      const found = await readAssociation(sql, tenantId, lease_id, lessee_id);
      if (!found) throw notFound("Lease lessee", `${lessee_id} of lease ${lease_id}`);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}

/** A lease's amendments, each with its documents. */
function amendmentRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases/:lease_id/amendments",
    {
      schema: {
        tags,
        summary: "Amendments of a lease, oldest first, each with its documents",
        params: leaseParams,
        response: answers(z.array(amendmentBody)),
      },
      config: read,
    },
    async (request) => listAmendments(sql, tenantOf(request), request.params.lease_id),
  );
  api.get(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "One amendment of a lease, with its documents",
        params: amendmentParams,
        response: answers(amendmentBody),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, amendment_id } = request.params;
      await requireLease(sql, tenantId, lease_id);
      const found = await readAmendment(sql, tenantId, lease_id, amendment_id);
      if (!found) throw notFound("Amendment", amendment_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
}

/** A lease's documents: their metadata and bytes. */
function documentRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases/:lease_id/documents",
    {
      schema: {
        tags,
        summary: "Documents of a lease, oldest first; with amendment_id, those of that amendment",
        params: leaseParams,
        querystring: z.strictObject({ amendment_id: uuid().optional() }),
        response: answers(z.array(documentBody)),
      },
      config: read,
    },
    async (request) =>
      listDocuments(sql, tenantOf(request), request.params.lease_id, request.query.amendment_id),
  );
  const requireDocument = async (tenantId: string, leaseId: string, id: string) => {
    await requireLease(sql, tenantId, leaseId);
    const found = await readDocument(sql, tenantId, leaseId, id);
    if (!found) throw notFound("Document", id);
    return found;
  };
  api.get(
    "/api/leases/:lease_id/documents/:document_id",
    {
      schema: {
        tags,
        summary: "One document's metadata",
        params: documentParams,
        response: answers(documentBody),
      },
      config: read,
    },
    async (request, reply) => {
      const { lease_id, document_id } = request.params;
      const found = await requireDocument(tenantOf(request), lease_id, document_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );
  api.get(
    "/api/leases/:lease_id/documents/:document_id/file",
    {
      schema: { tags, summary: "The document's bytes", params: documentParams, response: answers(fileBytes) },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id, document_id } = request.params;
      const found = await requireDocument(tenantId, lease_id, document_id);
      const blob = await blobStoreFor(sql).getBlob(blobKey(tenantId, "lease-documents", document_id));
      if (!blob) throw notFound("Document file", document_id);
      const filename = String(found.body.filename).replace(/["\\\r\n]/g, "_");
      return reply
        .header("content-type", blob.content_type)
        .header("content-length", String(blob.size))
        .header("content-disposition", `attachment; filename="${filename}"`)
        .send(blob.bytes);
    },
  );
}

function rentHistoryRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/leases/:lease_id/rent-history",
    {
      schema: {
        tags,
        summary: "Rent changes of a lease, oldest first",
        params: leaseParams,
        response: answers(z.array(rentChangeBody)),
      },
      config: read,
    },
    async (request) => listRentChanges(sql, tenantOf(request), request.params.lease_id),
  );
}

export async function leaseQueryRoutes(app: FastifyInstance): Promise<void> {
  listRoutes(app);
  leaseRoutes(app);
  tenantRoutes(app);
  amendmentRoutes(app);
  documentRoutes(app);
  rentHistoryRoute(app);
}
