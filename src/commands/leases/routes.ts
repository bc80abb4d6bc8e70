import type { FastifyInstance } from "fastify";
import { leaseAmendmentRoutes } from "./routes/amendments.ts";
import { leaseStatusRoutes } from "./routes/status.ts";
import { leaseTenantRoutes } from "./routes/tenants.ts";
import { leaseTermRoutes } from "./routes/terms.ts";

/** POST, PUT and DELETE of /api/leases (docs/specification.md Leases, docs/design.md §6 Leases), one group per concern. */
export async function leaseCommandRoutes(app: FastifyInstance): Promise<void> {
  leaseTermRoutes(app);
  leaseStatusRoutes(app);
  leaseTenantRoutes(app);
  leaseAmendmentRoutes(app);
}
