import { ownerResource } from "../events/owners.ts";
import type { Sql } from "../platform/db.ts";
import { resourceExportRoute } from "../platform/resource/personalRoutes.ts";
import { resourceExists } from "../platform/resource/read.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";
import { ownerEstates, ownerEstatesShape } from "./ownerPrivacy.ts";

/** GET routes of the Owners area (list: q, category, email), and the look-up estates make. */
export const ownerQueries = resourceQueryRoutes(ownerResource);

export const ownerExists = (sql: Sql, tenantId: string, id: string) =>
  resourceExists(sql, ownerResource, tenantId, id);

/** GET /api/owners/{id}/export (GDPR art. 15 and 20): the owner, its estates, its history. */
export const ownerExport = resourceExportRoute(ownerResource, {
  more: {
    shape: ownerEstatesShape,
    read: (request, { tenantId, id }) => ownerEstates(request.server.platform.sql, tenantId, id),
  },
});
