import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { leaseStream } from "../events/leases.ts";
import { leaseAccountStream } from "../events/rentCycle.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { merklePath } from "../platform/eventstore/chain.ts";
import { chainLine, type HeadProof } from "../platform/eventstore/verifyChain.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { answers } from "../platform/http/responses.ts";
import { isoDate, uuid } from "../platform/http/schemas.ts";

const tags = ["Audit"];

/** A day's heads of a tenant in the leaves' order: stream names by UTF-16 code units, as JS sorts. */
export async function dayLeaves(sql: Sql, tenant_id: string, day: string) {
  const rows = await sql.query<{ stream_name: string; stream_revision: string; hash: string }>(
    "SELECT stream_name, stream_revision::text, hash FROM audit_stream_heads WHERE tenant_id = $1 AND day = $2::date",
    [tenant_id, day],
  );
  return rows.sort((a, b) => (a.stream_name < b.stream_name ? -1 : a.stream_name > b.stream_name ? 1 : 0));
}

/** The proof of a stream's latest head that has a root: the day, the root and the Merkle path. */
export async function headProof(sql: Sql, tenant_id: string, stream_name: string): Promise<HeadProof | null> {
  const [head] = await sql.query<{ day: string; root: string }>(
    `SELECT h.day::text AS day, r.root FROM audit_stream_heads h
     JOIN audit_roots r ON r.tenant_id = h.tenant_id AND r.day = h.day
     WHERE h.tenant_id = $1 AND h.stream_name = $2 ORDER BY h.day DESC LIMIT 1`,
    [tenant_id, stream_name],
  );
  if (!head) return null;
  const leaves = await dayLeaves(sql, tenant_id, head.day);
  const index = leaves.findIndex((l) => l.stream_name === stream_name);
  const leaf = leaves[index];
  return {
    tenant_id,
    day: head.day,
    root: head.root,
    stream_name,
    stream_revision: Number(leaf.stream_revision),
    hash: leaf.hash,
    path: merklePath(
      leaves.map((l) => l.hash),
      index,
    ),
  };
}

const rootBody = z
  .strictObject({
    day: z.string().describe("The Paris day (YYYY-MM-DD)"),
    root: z
      .string()
      .describe("Hex SHA-256 Merkle root over the heads of the tenant's streams written that day"),
    streams: z.number().int().describe("How many stream heads (leaves) the root covers"),
    computed_at: z.string(),
  })
  .meta({ id: "AuditRoot", description: "A tenant's daily root of the event log (docs/audit.md)" });

const ndjson = z.unknown().meta({
  description:
    "One JSON line per event of the lease's streams (the lease, then its account for a FinanceRead caller), each with `hash` and `previous_hash`, then one `proof` line per stream whose head is under a daily root (docs/audit.md)",
  content: { "application/x-ndjson": { schema: { type: "string" } } },
});

/** GET /api/audit/roots and GET /api/leases/{id}/history.ndjson (docs/audit.md). */
export async function auditQueryRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/audit/roots",
    {
      schema: {
        tags,
        summary: "The tenant's daily root of the event log for a day (computed the night after it)",
        querystring: z.strictObject({ date: isoDate }),
        response: answers(rootBody),
      },
      config: { access: "SettingsRead" as const },
    },
    async (request) => {
      const [row] = await sql.query(
        `SELECT day::text AS day, root, streams, computed_at FROM audit_roots WHERE tenant_id = $1 AND day = $2::date`,
        [tenantOf(request), request.query.date],
      );
      if (!row) throw notFound("Audit root", request.query.date);
      return { ...row, computed_at: new Date(row.computed_at).toISOString() };
    },
  );
  api.get(
    "/api/leases/:lease_id/history.ndjson",
    {
      schema: {
        tags,
        summary: "The lease's events as stored, hash-chained, with the proof of each stream's head (NDJSON)",
        params: z.strictObject({ lease_id: uuid() }),
        response: answers(ndjson),
      },
      config: { access: "LeasesRead" as const },
    },
    async (request, reply) => {
      const { lease_id } = request.params;
      const tenant_id = tenantOf(request);
      const { store } = app.platform;
      // The account (rent calls, payments) is Finance wherever it sits: only for a FinanceRead caller.
      const finance = request.auth?.permissions.includes("FinanceRead") ?? false;
      const streams = [leaseStream(lease_id), ...(finance ? [leaseAccountStream(lease_id)] : [])];
      const events = await Promise.all(streams.map((s) => store.readStream(s)));
      if (events[0].length === 0 || events[0][0].metadata.tenant_id !== tenant_id)
        throw notFound("Lease", lease_id);
      const lines: string[] = [];
      for (const stream of events)
        for (const e of stream)
          if (e.metadata.tenant_id === tenant_id) lines.push(JSON.stringify(chainLine(e)));
      for (const [i, name] of streams.entries()) {
        if (events[i].length === 0) continue;
        const proof = await headProof(sql, tenant_id, name);
        if (proof) lines.push(JSON.stringify({ proof }));
      }
      reply.type("application/x-ndjson");
      return `${lines.join("\n")}\n`;
    },
  );
}
