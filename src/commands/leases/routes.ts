import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { leaseStream } from "../../events/leases.ts";
import { legalToday } from "../../law/calendar.ts";
import type { NoticeFacts } from "../../law/notice.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { type StreamCache, streamCache } from "../../platform/streamCache.ts";
import { readEstate } from "../../queries/estates.ts";
import { readDpeSummaryOn, readLeaseTerms } from "../../queries/leaseCompliance.ts";
import {
  amendmentBody,
  amendmentParams,
  associationBody,
  associationParams,
  leaseBody,
  leaseFromEvents,
  leaseParams,
  readAmendment,
  readAssociation,
} from "../../queries/leases.ts";
import { createLeaseSchema, type RentInput, rentSchema } from "../../queries/leasesSchemas.ts";
import { readLessee } from "../../queries/lessees.ts";
import { readEstateRentRegulation, readIrl } from "../../queries/rentRegulation.ts";
import { type LeaseCommand, type LeaseState, type LesseeFact, leaseDecider } from "./decider.ts";
import { estateOccupancyOf } from "./occupancy.ts";
import {
  addLesseeSchema,
  amendmentStatusSchema,
  createAmendmentSchema,
  endAssociationSchema,
  type StatusInput,
  statusSchema,
  updateAmendmentSchema,
  updateAssociationSchema,
  updateLeaseSchema,
} from "./schemas.ts";
import { passesSnapshot, snapshotLease } from "./snapshots.ts";

const tags = ["Leases"];
const invalidBodyMessage = "Invalid lease data";
const write = { access: "LeasesWrite" as const, invalidBodyMessage };
const remove = { access: "LeasesDelete" as const };
const today = () => legalToday();

async function lesseeFact(sql: Sql, tenantId: string, id: string): Promise<LesseeFact> {
  const found = await readLessee(sql, tenantId, id);
  return found ? { category: String(found.body.category) } : null;
}

const estateExists = async (sql: Sql, tenantId: string, id: string | undefined) =>
  id === undefined ? undefined : (await readEstate(sql, tenantId, id)) !== null;

/**
 * What the F/G freeze is judged on (loi n° 89-462 art. 17-1 III): the DPE of the lease's estate
 * valid on the change's effective date (its own, else its place's), and who lets (art. 10: the
 * length of the renewed contract periods).
 */
async function freezeFacts(sql: Sql, tenantId: string, leaseId: string, date: string) {
  const lease = await readLeaseTerms(sql, tenantId, leaseId);
  if (!lease) return { dpe: null, lessor: undefined };
  return { dpe: await readDpeSummaryOn(sql, tenantId, lease.estate_id, date), lessor: lease.lessor };
}

/** The IRL data's values for an index revision's quarters (docs/compliance.md). */
async function publishedIrlOf(sql: Sql, index: RentInput["index"]) {
  if (index?.type !== "IRL") return undefined;
  const [reference, next] = await Promise.all([
    readIrl(sql, index.reference_quarter),
    readIrl(sql, index.new_quarter),
  ]);
  return { reference_value: reference?.value ?? null, new_value: next?.value ?? null };
}

/**
 * What a notice's period depends on beyond the lease (./notice.ts): the estate's zone, the body's
 * claims. Judged on the lease as loaded for the command, so the lease read model is not read
 * again (docs/performance.md, "Profile of a lease status change").
 */
async function noticeFacts(
  request: FastifyRequest,
  lease: LeaseState,
  body: StatusInput,
): Promise<NoticeFacts> {
  const terms = "terms" in lease ? lease.terms : null;
  // Only a lessee's notice on an unfurnished lease, without a listed case, depends on the zone.
  const zoneMatters =
    terms?.lease_type === "UNFURNISHED" && body.given_by !== "LESSOR" && body.reduced_notice !== true;
  const regulation = zoneMatters
    ? await readEstateRentRegulation(request.server.platform.sql, tenantOf(request), terms.estate_id)
    : null;
  return {
    given_by: body.given_by ?? "LESSEE",
    reduced_notice: body.reduced_notice ?? false,
    high_demand_zone: regulation?.high_demand_zone ?? null,
    requested_end: body.notice_end_date ?? null,
  };
}

/**
 * Lease streams as this process's commands left them, one cache per event store: a status change
 * decides without reading the stream (src/platform/streamCache.ts, docs/performance.md).
 */
const leaseStreamCaches = new WeakMap<object, StreamCache>();
function leaseStreamsOf(store: object): StreamCache {
  const kept = leaseStreamCaches.get(store);
  if (kept) return kept;
  const cache = streamCache();
  leaseStreamCaches.set(store, cache);
  return cache;
}

/**
 * Load, decide, append a lease command; the append carries the estate's occupancy reservation
 * when the events activate or end the lease (./occupancy.ts, on src/platform/reserveUnique.ts).
 * With `If-Match` a stale revision is a 412; without, a concurrent write is retried on fresh
 * state, then answered 409.
 */
export async function handleLease(
  request: FastifyRequest,
  leaseId: string,
  command: (state: LeaseState) => LeaseCommand | Promise<LeaseCommand>,
) {
  const { position, revision, events, stream } = await handleCommand(
    request,
    leaseStream(leaseId),
    leaseDecider,
    command,
    {
      notFound: () => notFound("Lease", leaseId),
      reserving: estateOccupancyOf(leaseId),
      cache: leaseStreamsOf(request.server.platform.store),
    },
  );
  if (revision !== null && passesSnapshot(Number(revision), events.length))
    await snapshotLease(request.server.platform.sql, tenantOf(request), leaseId, stream).catch(
      (error: unknown) => request.log.warn({ err: error, lease_id: leaseId }, "lease snapshot not stored"),
    );
  // The answer is the lease row folded from the stream the command saw and wrote, which the
  // read model holds once the wait for the projection is over: no read of it (docs/performance.md).
  const answer = async () => leaseFromEvents(stream);
  return { position, revision, answer };
}

/** POST, PUT and DELETE of /api/leases (SPEC.md Leases, DESIGN.md §6 Leases). */
export async function leaseCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/leases",
    {
      schema: {
        tags,
        summary: "Create a lease in DRAFT with its Primary tenant",
        body: createLeaseSchema,
        response: createdAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const id = newResourceId(request);
      const input = request.body;
      const [estate, primary] = await Promise.all([
        estateExists(sql, tenantId, input.estate_id),
        lesseeFact(sql, tenantId, input.primary_lessee_id),
      ]);
      const result = await handleCommand(
        request,
        leaseStream(id),
        leaseDecider,
        {
          type: "CreateLease",
          lease_id: id,
          association_id: newResourceId(request, "association_id"),
          input,
          estate_exists: estate === true,
          primary,
        },
        // A new id: nothing to read; the lease is kept for the commands that follow.
        { fresh: true, cache: leaseStreamsOf(request.server.platform.store) },
      );
      return replyWithResource(request, reply, 201, {
        id,
        position: result.position,
        location: `/api/leases/${id}`,
        // Folded from the stream the command wrote, as the other lease commands answer: no read.
        read: async () => leaseFromEvents(result.stream),
      });
    },
  );

  api.put(
    "/api/leases/:lease_id",
    {
      schema: {
        tags,
        summary: "Update a lease (contract terms only before activation)",
        params: leaseParams,
        body: updateLeaseSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const estate_exists = await estateExists(sql, tenantOf(request), request.body.estate_id);
      const result = await handleLease(request, lease_id, () => ({
        type: "UpdateLease",
        lease_id,
        input: request.body,
        estate_exists,
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: result.answer,
      });
    },
  );

  api.delete(
    "/api/leases/:lease_id",
    {
      schema: { tags, summary: "Delete a DRAFT lease", params: leaseParams, response: deletedAnswers },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({ type: "DeleteLease", lease_id }));
      return replyWithResource(request, reply, 204, { id: lease_id, position: result.position });
    },
  );

  api.put(
    "/api/leases/:lease_id/status",
    {
      schema: {
        tags,
        summary: "Change the status of a lease",
        params: leaseParams,
        body: statusSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const b = request.body;
      const result = await handleLease(request, lease_id, async (state) => ({
        type: "ChangeLeaseStatus",
        lease_id,
        status: b.status,
        effective_date: b.effective_date ?? today(),
        reason: b.reason ?? null,
        notice: b.status === "NOTICE" ? await noticeFacts(request, state, b) : undefined,
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: result.answer,
      });
    },
  );

  api.put(
    "/api/leases/:lease_id/rent",
    {
      schema: {
        tags,
        summary: "Change the rent (kept in the rent history)",
        params: leaseParams,
        body: rentSchema,
        response: updatedAnswers(leaseBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const facts = await freezeFacts(sql, tenantOf(request), lease_id, request.body.effective_date);
      const published_irl = await publishedIrlOf(sql, request.body.index);
      const result = await handleLease(request, lease_id, () => ({
        type: "ChangeRent",
        lease_id,
        input: request.body,
        ...facts,
        published_irl,
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: result.answer,
      });
    },
  );

  const answerAssociation = (request: FastifyRequest, leaseId: string, lesseeId: string) => () =>
    readAssociation(sql, tenantOf(request), leaseId, lesseeId);

  api.post(
    "/api/leases/:lease_id/lessees",
    {
      schema: {
        tags,
        summary: "Add a tenant or guarantor to a lease",
        params: leaseParams,
        body: addLesseeSchema,
        response: createdAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const lessee = await lesseeFact(sql, tenantOf(request), request.body.lessee_id);
      const result = await handleLease(request, lease_id, () => ({
        type: "AddLeaseLessee",
        lease_id,
        association_id: newResourceId(request, "association_id"),
        input: request.body,
        lessee,
        today: today(),
      }));
      return replyWithResource(request, reply, 201, {
        id: lease_id,
        ...result,
        location: `/api/leases/${lease_id}/lessees/${request.body.lessee_id}`,
        read: answerAssociation(request, lease_id, request.body.lessee_id),
      });
    },
  );

  api.put(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "Change a tenant's role or term dates",
        params: associationParams,
        body: updateAssociationSchema,
        response: updatedAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "UpdateLeaseLessee",
        lease_id,
        lessee_id,
        input: request.body,
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: answerAssociation(request, lease_id, lessee_id),
      });
    },
  );

  api.put(
    "/api/leases/:lease_id/lessees/:lessee_id/end",
    {
      schema: {
        tags,
        summary: "End a tenant's term",
        params: associationParams,
        body: endAssociationSchema.optional(),
        response: updatedAnswers(associationBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "EndLeaseLessee",
        lease_id,
        lessee_id,
        end_date: request.body?.end_date ?? today(),
      }));
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        ...result,
        read: answerAssociation(request, lease_id, lessee_id),
      });
    },
  );

  api.delete(
    "/api/leases/:lease_id/lessees/:lessee_id",
    {
      schema: {
        tags,
        summary: "Remove a tenant from a DRAFT lease",
        params: associationParams,
        response: deletedAnswers,
      },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "RemoveLeaseLessee",
        lease_id,
        lessee_id,
      }));
      return replyWithResource(request, reply, 204, { id: lease_id, position: result.position });
    },
  );

  const answerAmendment = (request: FastifyRequest, leaseId: string, id: string) => () =>
    readAmendment(sql, tenantOf(request), leaseId, id);

  api.post(
    "/api/leases/:lease_id/amendments",
    {
      schema: {
        tags,
        summary: "Draft an amendment",
        params: leaseParams,
        body: createAmendmentSchema,
        response: createdAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const amendment_id = newResourceId(request);
      const result = await handleLease(request, lease_id, () => ({
        type: "DraftAmendment",
        lease_id,
        amendment_id,
        input: request.body,
      }));
      return replyWithResource(request, reply, 201, {
        id: amendment_id,
        ...result,
        location: `/api/leases/${lease_id}/amendments/${amendment_id}`,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );

  api.put(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "Update a DRAFT amendment",
        params: amendmentParams,
        body: updateAmendmentSchema,
        response: updatedAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "ReviseAmendment",
        lease_id,
        amendment_id,
        input: request.body,
      }));
      return replyWithResource(request, reply, 200, {
        id: amendment_id,
        ...result,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );

  api.delete(
    "/api/leases/:lease_id/amendments/:amendment_id",
    {
      schema: {
        tags,
        summary: "Delete a DRAFT amendment",
        params: amendmentParams,
        response: deletedAnswers,
      },
      config: remove,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const result = await handleLease(request, lease_id, () => ({
        type: "DeleteAmendment",
        lease_id,
        amendment_id,
      }));
      return replyWithResource(request, reply, 204, { id: amendment_id, position: result.position });
    },
  );

  api.put(
    "/api/leases/:lease_id/amendments/:amendment_id/status",
    {
      schema: {
        tags,
        summary: "Submit, validate (applies the changes), reject or cancel an amendment",
        params: amendmentParams,
        body: amendmentStatusSchema,
        response: updatedAnswers(amendmentBody),
      },
      config: write,
    },
    async (request, reply) => {
      const { lease_id, amendment_id } = request.params;
      const tenantId = tenantOf(request);
      const amendment =
        request.body.status === "VALIDATED"
          ? await readAmendment(sql, tenantId, lease_id, amendment_id)
          : null;
      const effective = amendment ? String(amendment.body.effective_date).slice(0, 10) : null;
      const facts = effective ? await freezeFacts(sql, tenantId, lease_id, effective) : { dpe: null };
      const result = await handleLease(request, lease_id, () => ({
        type: "ChangeAmendmentStatus",
        lease_id,
        amendment_id,
        status: request.body.status,
        reason: request.body.reason ?? null,
        ...facts,
      }));
      return replyWithResource(request, reply, 200, {
        id: amendment_id,
        ...result,
        read: answerAmendment(request, lease_id, amendment_id),
      });
    },
  );
}
