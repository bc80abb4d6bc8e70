import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { loadConfig } from "../../src/platform/config.ts";
import type { Sql } from "../../src/platform/db.ts";
import { ALL_PERMISSIONS, createApiKey, createTenant } from "../../src/platform/tenants/tenants.ts";
import { type Service, startService } from "../../src/service.ts";
import { responseCheckerOf } from "./checkResponse.ts";
import { createTestDatabase, type DatabaseKind } from "./testDatabase.ts";

export const TEST_ADMIN_KEY = "test-admin-key-0123456789abcdef0123456789";

export interface TestTenant {
  id: string;
  key: string;
}

export interface TestApp {
  kind: DatabaseKind;
  app: FastifyInstance;
  service: Service;
  sql: Sql;
  /** A tenant with a key holding every permission. */
  tenant: TestTenant;
  /** A second tenant, for isolation tests. */
  other: TestTenant;
  /**
   * Injects a request as `tenant` (or `as`); JSON bodies are serialised. The answer is checked
   * against /api/openapi.json (status declared, body matching its schema) before it is returned.
   */
  request(
    method: string,
    url: string,
    options?: { body?: unknown; as?: TestTenant | null; headers?: Record<string, string>; rawBody?: string },
  ): Promise<LightMyRequestResponse>;
  newTenant(name?: string, permissions?: readonly string[]): Promise<TestTenant>;
  close(): Promise<void>;
}

/** Events in the log, every tenant's: a refused request must leave it as it was. */
export const eventCount = async (t: TestApp) =>
  Number((await t.sql.query("SELECT count(*)::int AS n FROM events"))[0].n);

let counter = 0;

/** The whole service (API, projectors, jobs) on a fresh database of the given kind. */
export async function createTestApp(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  /**
   * `loops`: run the worker loops (the outbox's deliverer, amendment notices). Off by default: they
   * append messages on their own, which suites counting events around a command must not see.
   */
  options: { loops?: boolean; sealPersonalData?: boolean } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(kind);
  const config = loadConfig({
    LOG_LEVEL: "silent",
    PMS_ADMIN_API_KEY: TEST_ADMIN_KEY,
    PMS_RATE_LIMIT_PER_MINUTE: "0",
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  const service = await startService(config, {
    sql: db.sql,
    loops: options.loops ?? false,
    sealPersonalData: options.sealPersonalData,
  });
  const app = service.app!;
  await app.ready();
  const checkResponse = await responseCheckerOf(app);
  const newTenant = async (name = `tenant-${process.pid}-${++counter}`, permissions = ALL_PERMISSIONS) => {
    const t = await createTenant(db.sql, name);
    const k = await createApiKey(db.sql, t.id, "test", permissions as typeof ALL_PERMISSIONS);
    return { id: t.id, key: k.key };
  };
  const tenant = await newTenant();
  const other = await newTenant();
  return {
    kind,
    app,
    service,
    sql: db.sql,
    tenant,
    other,
    newTenant,
    async request(method, url, options = {}) {
      const as = options.as === undefined ? tenant : options.as;
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (as) headers.authorization = `Bearer ${as.key}`;
      let payload: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.inject({ method: method as "GET", url, headers, payload });
      checkResponse(method, url, res);
      return res;
    },
    async close() {
      await service.close();
      await db.drop();
    },
  };
}
