import { type TypeKind, typeResource } from "../events/types.ts";
import type { Sql } from "../platform/db.ts";
import {
  catalogEntrySql,
  catalogQueryRoutes,
  globalCodeExists as inGlobalCatalog,
  readCatalogEntry,
} from "../platform/resource/catalog.ts";

/** GET routes of the Types area (the global catalog, then the tenant's); the look-ups other areas make. */
export const typeQueries = catalogQueryRoutes(typeResource);

/** True when the id is a global type of the kind or one of the tenant's. */
export const typeExists = async (sql: Sql, tenantId: string, kind: TypeKind, id: string) =>
  (await readCatalogEntry(sql, typeResource, tenantId, kind, id)) !== null;

export const globalCodeExists = (sql: Sql, kind: TypeKind, code: string) =>
  inGlobalCatalog(sql, typeResource, kind, code);

/**
 * A type's row as a scalar SQL expression (jsonb with id, code and name, or null) over SQL
 * expressions for the tenant, the kind and the id, for a statement that reads more with it.
 */
export const typeSql = (tenant: string, kind: string, id: string) =>
  catalogEntrySql(typeResource, tenant, kind, id);
