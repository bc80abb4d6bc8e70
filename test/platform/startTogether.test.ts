import { describe, expect, it } from "vitest";
import { freePort } from "../support/freePort.ts";
import { type ServiceProcess, startProcess, until, untilReady, userEnv } from "../support/serviceProcess.ts";
import { createEmptyDatabase } from "../support/testDatabase.ts";

/**
 * Every role started at the same moment on a fresh database, as `docker compose up` does: api x2,
 * projector and worker as real processes (`pms serve --role ...`). Their start-up schema work
 * (migrations, pg-boss's schema) is serialised across processes (docs/operations.md).
 */
const ADMIN = "admin-0123456789-0123456789-0123456789";

const call = async (
  url: string,
  init: { method?: string; auth?: Record<string, string>; body?: unknown } = {},
) => {
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: { ...init.auth, ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> };
};
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("all roles started at once on a fresh database", () => {
  it("api x2, projector and worker all serve", async () => {
    const database = await createEmptyDatabase();
    const roles: ServiceProcess[] = [];
    try {
      const ports = [await freePort(), await freePort()];
      const serve = (name: string, role: string, port: number) =>
        startProcess(name, [process.execPath, "bin/pms.js", "serve", "--role", role], {
          env: userEnv({
            DATABASE_URL: database.url,
            PORT: String(port),
            PMS_ADMIN_API_KEY: ADMIN,
            LOG_LEVEL: "warn",
          }),
        });
      roles.push(
        serve("api 1", "api", ports[0]),
        serve("api 2", "api", ports[1]),
        serve("projector", "projector", await freePort()),
        serve("worker", "worker", await freePort()),
      );
      const apis = ports.map((p) => `http://127.0.0.1:${p}`);
      for (const api of apis) await untilReady(api, roles);

      // The projector serves: a write through each api is answered with its read model (201, not
      // the 202 of a write whose read model did not follow).
      const admin = bearer(ADMIN);
      const tenant = await call(`${apis[0]}/api/admin/tenants`, {
        method: "POST",
        auth: admin,
        body: { name: "t" },
      });
      expect(tenant.status, JSON.stringify(tenant.body)).toBe(201);
      const created = await call(`${apis[0]}/api/admin/tenants/${tenant.body.id}/api-keys`, {
        method: "POST",
        auth: admin,
        body: { name: "k", permissions: ["LesseeRead", "LesseeWrite"] },
      });
      for (const [n, api] of apis.entries()) {
        const lessee = await call(`${api}/api/lessees`, {
          method: "POST",
          auth: bearer(created.body.key),
          body: {
            category: "individual",
            first_name: "Camille",
            last_name: "Martin",
            email: `c${n}@example.fr`,
          },
        });
        expect(lessee.status, JSON.stringify(lessee.body)).toBe(201);
      }

      // The worker serves: a queued rebuild completes.
      const worker = await call(`${apis[1]}/api/admin/tenants/${tenant.body.id}/worker-keys`, {
        method: "POST",
        auth: admin,
        body: { name: "w" },
      });
      expect(worker.status, JSON.stringify(worker.body)).toBe(201);
      const workerAuth = { "x-api-key": worker.body.key };
      const job = await call(`${apis[1]}/api/workers/jobs/projection-rebuild`, {
        method: "POST",
        auth: workerAuth,
        body: { projection: "lessees" },
      });
      expect(job.status, JSON.stringify(job.body)).toBe(202);
      const done = await until("rebuild job completed", roles, async () => {
        const res = await call(`${apis[0]}/api/workers/jobs/projection-rebuild/${job.body.job_id}`, {
          auth: workerAuth,
        });
        return ["completed", "failed"].includes(res.body?.state) ? res.body : null;
      });
      expect(done.state, JSON.stringify(done)).toBe("completed");
      expect(roles.filter((r) => r.exited() !== undefined).map((r) => r.name)).toEqual([]);
    } finally {
      await Promise.all(roles.map((r) => r.stop()));
      await database.drop();
    }
  }, 300_000);
});
