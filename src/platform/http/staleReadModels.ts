import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { staleByTenant } from "../projections/quarantine.ts";

/** How old, at most, the list of tenants with quarantined events may be when a reply reads it. */
const REFRESH_MS = 1000;

/**
 * A tenant with events in a projection's quarantine gets `Stale-Read-Models: <projections>` on
 * every answer (docs/operations.md, "Quarantine"): those read models lack some of its events.
 * Other tenants' answers carry nothing. The list is read at most once a second per process,
 * one statement for all tenants, not one per request.
 */
export const staleReadModels = fp(async (app: FastifyInstance) => {
  let stale = new Map<string, string[]>();
  let readAt = 0;
  let reading: Promise<void> | null = null;
  const refresh = () => {
    reading ??= staleByTenant(app.platform.sql)
      .then((found) => {
        stale = found;
        readAt = Date.now();
      })
      // The database away: the last list serves for another second, not a wait per answer.
      .catch(() => {
        readAt = Date.now();
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  app.addHook("onSend", async (request, reply, payload) => {
    const tenant = request.auth?.tenant_id;
    if (!tenant) return payload;
    if (Date.now() - readAt > REFRESH_MS) await refresh();
    const projections = stale.get(tenant);
    if (projections) reply.header("stale-read-models", projections.join(", "));
    return payload;
  });
});
