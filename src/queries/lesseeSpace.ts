import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Sql } from "../platform/db.ts";
import { ApiError, notFound } from "../platform/errors.ts";
import { setEtag } from "../platform/http/etag.ts";
import { offsetOf, pageQuery, sendPage } from "../platform/http/pagination.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers } from "../platform/http/responses.ts";
import { mapLimit } from "../platform/mapLimit.ts";
import { leaseBody, leaseParams, readLease } from "./leases.ts";
import {
  accountBody,
  leaseAccount,
  leaseCallFilters,
  leaseRentCall,
  leaseRentCalls,
  rentCallBody,
  rentCallParams,
} from "./rentCycle.ts";

/**
 * The lessee's own space (docs/design.md §7.0, docs/security.md "The lessee's space"): a lessee's user
 * token sees the leases of the lessees whose `auth_user_id` is its subject, and nothing else.
 * Built as a filter over the Leases area's queries: `ownLeaseIds` decides what is the lessee's,
 * the lease area's `readLease` answers. Rent calls and the account take the same filter
 * (`ensureOwnLease`), then the rent cycle's own functions answer; the receipt route is the rent
 * collection's (src/commands/rentCollection/receipts.ts: asking for it may number a quittance).
 */

/** Who asks: the tenant and the subject of a verified lessee token (the route declared a lessee scope). */
export interface LesseeCaller {
  tenant_id: string;
  subject: string;
}

export function lesseeOf(request: FastifyRequest): LesseeCaller {
  const user = request.auth?.user;
  // Unreachable behind a lessee scope (the auth hook let only lessee tokens in); deny anyway.
  if (!request.auth || !user?.roles.includes("lessee"))
    throw new ApiError("Forbidden", "This route needs a lessee's user token");
  return { tenant_id: request.auth.tenant_id, subject: user.subject };
}

/**
 * A page of the lessee's lease ids, oldest lease first: every lease where a lessee of the
 * subject is named (tenant or guarantor, current or past term: a former tenant keeps its papers).
 */
export async function ownLeaseIds(
  sql: Sql,
  caller: LesseeCaller,
  page: { limit: number; offset: number },
): Promise<{ ids: string[]; total: number }> {
  return sql.asTenant(caller.tenant_id, async (tx) => {
    const own = `FROM leases l WHERE l.tenant_id = $1 AND EXISTS (
        SELECT 1 FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
        WHERE a.tenant_id = $1 AND a.lease_id = l.id AND p.auth_user_id = $2)`;
    const [{ total }] = await tx.query(`SELECT count(*)::int AS total ${own}`, [
      caller.tenant_id,
      caller.subject,
    ]);
    const rows = await tx.query(`SELECT l.id ${own} ORDER BY l.created_at, l.id LIMIT $3 OFFSET $4`, [
      caller.tenant_id,
      caller.subject,
      page.limit,
      page.offset,
    ]);
    return { ids: rows.map((r) => r.id as string), total: Number(total) };
  });
}

/** Whether the lease is one of the lessee's. */
export async function isOwnLease(sql: Sql, caller: LesseeCaller, leaseId: string): Promise<boolean> {
  const rows = await sql.asTenant(caller.tenant_id, (tx) =>
    tx.query(
      `SELECT 1 FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
       WHERE a.tenant_id = $1 AND a.lease_id = $2 AND p.auth_user_id = $3 LIMIT 1`,
      [caller.tenant_id, leaseId, caller.subject],
    ),
  );
  return rows.length > 0;
}

/** 404 unless the lease is the lessee's (another lessee's answers as an unknown id does). */
export async function ensureOwnLease(sql: Sql, caller: LesseeCaller, leaseId: string): Promise<void> {
  if (!(await isOwnLease(sql, caller, leaseId))) throw notFound("Lease", leaseId);
}

/** The lease if it is the lessee's; another's answers 404, as an unknown id does. */
export async function requireOwnLease(sql: Sql, caller: LesseeCaller, leaseId: string): Promise<Found> {
  const found = (await isOwnLease(sql, caller, leaseId))
    ? await readLease(sql, caller.tenant_id, leaseId)
    : null;
  if (!found) throw notFound("Lease", leaseId);
  return found;
}

const tags = ["Lessee space"];
const read = { access: "lessee:leases:read" as const };

export async function lesseeSpaceQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/lessee/leases",
    {
      schema: {
        tags,
        summary: "The signed-in lessee's leases",
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(leaseBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const caller = lesseeOf(request);
      const { page, limit } = request.query;
      const { ids, total } = await ownLeaseIds(sql, caller, { limit, offset: offsetOf({ page, limit }) });
      // The lease area answers each lease; a few at a time (a page may hold up to 1000).
      const leases = await mapLimit(ids, 4, (id) => readLease(sql, caller.tenant_id, id));
      const items = leases.filter((lease): lease is Found => lease !== null).map((lease) => lease.body);
      return sendPage(request, reply, { items, total, page, limit });
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id",
    {
      schema: {
        tags,
        summary: "One of the signed-in lessee's leases (another lessee's answers 404)",
        params: leaseParams,
        response: answers(leaseBody),
      },
      config: read,
    },
    async (request, reply) => {
      const found = await requireOwnLease(sql, lesseeOf(request), request.params.lease_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id/rent-calls",
    {
      schema: {
        tags,
        summary: "The rent calls of one of the signed-in lessee's leases, by due date",
        params: leaseParams,
        querystring: leaseCallFilters,
        response: answers(z.array(rentCallBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const caller = lesseeOf(request);
      const { lease_id } = request.params;
      await ensureOwnLease(sql, caller, lease_id);
      return sendPage(request, reply, await leaseRentCalls(sql, caller.tenant_id, lease_id, request.query));
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id/rent-calls/:call_id",
    {
      schema: {
        tags,
        summary: "A rent call of one of the signed-in lessee's leases",
        params: rentCallParams,
        response: answers(rentCallBody),
      },
      config: read,
    },
    async (request) => {
      const caller = lesseeOf(request);
      const { lease_id, call_id } = request.params;
      await ensureOwnLease(sql, caller, lease_id);
      return leaseRentCall(sql, caller.tenant_id, lease_id, call_id);
    },
  );

  api.get(
    "/api/lessee/leases/:lease_id/account",
    {
      schema: {
        tags,
        summary: "The account of one of the signed-in lessee's leases: balance and entries",
        params: leaseParams,
        response: answers(accountBody),
      },
      config: read,
    },
    async (request) => {
      const caller = lesseeOf(request);
      await ensureOwnLease(sql, caller, request.params.lease_id);
      return leaseAccount(sql, caller.tenant_id, request.params.lease_id);
    },
  );
}
