import { ownerResource } from "../events/owners.ts";
import type { Sql } from "../platform/db.ts";
import { resourceExists } from "../platform/resource/read.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";

/** GET routes of the Owners area (list: q, category, email), and the look-up estates make. */
export const ownerQueries = resourceQueryRoutes(ownerResource);

export const ownerExists = (sql: Sql, tenantId: string, id: string) =>
  resourceExists(sql, ownerResource, tenantId, id);
