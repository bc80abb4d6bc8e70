import type { Config } from "./config.ts";
import type { Sql } from "./db.ts";
import type { EventStore } from "./eventstore/eventStore.ts";
import type { Permission } from "./http/auth.ts";
import type { LesseeScope, UserIdentity } from "./http/userTokens.ts";
import type { Jobs } from "./jobs.ts";
import type { SubjectErasure } from "./personalData/erasure.ts";
import type { ProjectionRuntime } from "./projections/runProjections.ts";

/**
 * `"owner"`: an owner's user token only, never an API key (docs/design.md §7.0: only an owner buys
 * credits; docs/security.md).
 */
export type RouteAccess = "public" | "admin" | "worker" | "owner" | Permission | LesseeScope;

/** What routes and jobs get to work with; decorated on the fastify instance as `app.platform`. */
export interface Platform {
  config: Config;
  sql: Sql;
  store: EventStore;
  projections: ProjectionRuntime;
  jobs: Jobs;
  /** What the areas erase of a data subject they name (src/areas.ts). */
  erasures: readonly SubjectErasure[];
}

declare module "fastify" {
  interface FastifyInstance {
    platform: Platform;
  }
  interface FastifyRequest {
    /** `user` when the caller sent a user token (src/platform/http/userTokens.ts). */
    auth: { tenant_id: string; key_id: string; permissions: string[]; user?: UserIdentity } | null;
  }
  interface FastifyContextConfig {
    /** Message of a 400 when the body fails its schema (details still list each field). */
    invalidBodyMessage?: string | ((details: { field: string; message: string }[]) => string);
    /**
     * What the route needs, read by the auth hook from the matched route only (docs/security.md):
     * "public" (no key), "admin" (PMS_ADMIN_API_KEY), "worker" (a worker key in X-API-Key),
     * the tenant permission a tenant key (or a staff user token's role) must hold, or the lessee
     * scope a lessee's user token must carry. A route that declares nothing is refused
     * at start-up.
     */
    access?: RouteAccess;
    /** The JSON answer is also given as PDF on `Accept: application/pdf` (the API description says so). */
    pdfAlternative?: boolean;
  }
}
