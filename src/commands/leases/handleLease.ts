import type { FastifyRequest } from "fastify";
import { leaseStream } from "../../events/leases.ts";
import { isLiveLease } from "../../events/leaseView.ts";
import { legalToday } from "../../law/calendar.ts";
import type { NoticeFacts } from "../../law/notice.ts";
import type { Sql } from "../../platform/db.ts";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand } from "../../platform/http/handleCommand.ts";
import { streamCachesPerStore } from "../../platform/streamCache.ts";
import { readEstate } from "../../queries/estates.ts";
import { readDpeSummaryOn, readLeaseTerms } from "../../queries/leaseCompliance.ts";
import { leaseFromEvents } from "../../queries/leases.ts";
import type { RentInput } from "../../queries/leasesSchemas.ts";
import { readLessee } from "../../queries/lessees.ts";
import { readEstateRentRegulation, readIrl } from "../../queries/rentRegulation.ts";
import { type LeaseCommand, type LeaseState, type LesseeFact, leaseDecider } from "./decider.ts";
import { estateOccupancyOf } from "./occupancy.ts";
import type { StatusInput } from "./schemas.ts";
import { passesSnapshot, snapshotLease } from "./snapshots.ts";

/** Loading, deciding and appending a lease command; the facts the routes look up for it. */

export const tags = ["Leases"];
const invalidBodyMessage = "Invalid lease data";
export const write = { access: "LeasesWrite" as const, invalidBodyMessage };
export const remove = { access: "LeasesDelete" as const };
export const today = () => legalToday();

export async function lesseeFact(sql: Sql, tenantId: string, id: string): Promise<LesseeFact> {
  const found = await readLessee(sql, tenantId, id);
  return found ? { category: String(found.body.category) } : null;
}

export const estateExists = async (sql: Sql, tenantId: string, id: string | undefined) =>
  id === undefined ? undefined : (await readEstate(sql, tenantId, id)) !== null;

/**
 * What the F/G freeze is judged on (loi n° 89-462 art. 17-1 III): the DPE of the lease's estate
 * valid on the change's effective date (its own, else its place's), and who lets (art. 10: the
 * length of the renewed contract periods).
 */
export async function freezeFacts(sql: Sql, tenantId: string, leaseId: string, date: string) {
  const lease = await readLeaseTerms(sql, tenantId, leaseId);
  if (!lease) return { dpe: null, lessor: undefined };
  return { dpe: await readDpeSummaryOn(sql, tenantId, lease.estate_id, date), lessor: lease.lessor };
}

/** The IRL data's values for an index revision's quarters (docs/compliance.md). */
export async function publishedIrlOf(sql: Sql, index: RentInput["index"]) {
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
export async function noticeFacts(
  request: FastifyRequest,
  lease: LeaseState,
  body: StatusInput,
): Promise<NoticeFacts> {
  const terms = isLiveLease(lease) ? lease.terms : null;
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
export const leaseStreamsOf = streamCachesPerStore();

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
