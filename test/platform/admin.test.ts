import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, counterProjection, expectedCounters, readCounters } from "../support/counterProjection.ts";
import { type PlatformApp, startPlatformApp } from "../support/platformApp.ts";
import { TEST_ADMIN_KEY } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(databaseKinds)("admin API on %s", (kind) => {
  let w: PlatformApp;
  const control = { broken: false, batches: [] as number[] };
  beforeAll(async () => {
    w = await startPlatformApp(kind, {
      projections: [counterProjection({ name: "admin_counter", control })],
      env: { PMS_READ_YOUR_WRITES_TIMEOUT_MS: "1000" },
    });
  });
  afterAll(async () => {
    await w?.close();
  });

  const admin = (method: string, url: string, body?: unknown, key: string | null = TEST_ADMIN_KEY) =>
    w.app.inject({
      method: method as "GET",
      url,
      headers: {
        ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      payload: body !== undefined ? JSON.stringify(body) : undefined,
    });

  it("refuses a missing or wrong admin key, and tenant keys, with 401", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/admin/tenants"],
      ["POST", "/api/admin/tenants", { name: "nope" }],
      ["GET", `/api/admin/tenants/${w.tenant.id}/api-keys`],
      ["POST", `/api/admin/tenants/${w.tenant.id}/api-keys`, { name: "k", permissions: ["LesseeRead"] }],
      ["DELETE", `/api/admin/api-keys/${randomUUID()}`],
      ["GET", "/api/admin/projections"],
      ["POST", "/api/admin/projections/admin_counter/rebuild"],
      ["POST", `/api/admin/projections/admin_counter/quarantine/${randomUUID()}/retry`],
      ["POST", `/api/admin/projections/admin_counter/quarantine/${randomUUID()}/skip`],
    ];
    for (const [method, url, body] of routes) {
      for (const key of [null, `${TEST_ADMIN_KEY}x`, TEST_ADMIN_KEY.slice(0, -1), w.tenant.key, ""]) {
        const res = await admin(method, url, body, key);
        expect(res.statusCode, `${method} ${url} with ${key}`).toBe(401);
        expect(res.json().error).toBe("Unauthorized");
      }
    }
    expect(
      (await w.request("GET", "/api/admin/tenants", { headers: { "x-api-key": TEST_ADMIN_KEY }, as: null }))
        .statusCode,
    ).toBe(401);
    // Nothing was created by the refused calls.
    const names = (await admin("GET", "/api/admin/tenants")).json().map((t: { name: string }) => t.name);
    expect(names).not.toContain("nope");
  });

  it("creates and lists tenants", async () => {
    const name = `acme-${randomUUID().slice(0, 8)}`;
    const res = await admin("POST", "/api/admin/tenants", { name });
    expect(res.statusCode, res.body).toBe(201);
    const tenant = res.json();
    expect(Object.keys(tenant).sort()).toEqual(["created_at", "id", "name"]);
    expect(tenant.id).toMatch(UUID);
    expect(tenant.name).toBe(name);
    expect(new Date(tenant.created_at).toISOString()).toBe(tenant.created_at);
    const list = await admin("GET", "/api/admin/tenants");
    expect(list.statusCode).toBe(200);
    expect(list.json()).toContainEqual(tenant);
    // The Location answers the tenant.
    expect(res.headers.location).toBe(`/api/admin/tenants/${tenant.id}`);
    const located = await admin("GET", String(res.headers.location));
    expect(located.statusCode).toBe(200);
    expect(located.json()).toEqual(tenant);
    expect((await admin("GET", `/api/admin/tenants/${randomUUID()}`)).statusCode).toBe(404);
    // A list like any other (docs/architecture.md §4): page, limit, X-Total-Count, Link.
    const total = list.json().length;
    expect(list.headers["x-total-count"]).toBe(String(total));
    const page = await admin("GET", "/api/admin/tenants?page=2&limit=1");
    expect(page.json()).toEqual([list.json()[1]]);
    expect(page.headers["x-total-count"]).toBe(String(total));
    expect(String(page.headers.link)).toContain(`page=${total}&limit=1>; rel="last"`);
    expect((await admin("GET", "/api/admin/tenants?limit=0")).statusCode).toBe(400);

    expect((await admin("POST", "/api/admin/tenants", { name })).statusCode).toBe(409);
    for (const body of [{}, { name: "" }, { name: "   " }, { name: 3 }, { name: "x", extra: true }, []]) {
      const bad = await admin("POST", "/api/admin/tenants", body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().error).toBe("ValidationError");
    }
  });

  it("creates API keys shown once (pms_ prefix), stores only their hash, lists them without secrets", async () => {
    const tenant = (
      await admin("POST", "/api/admin/tenants", { name: `keys-${randomUUID().slice(0, 8)}` })
    ).json();
    const res = await admin("POST", `/api/admin/tenants/${tenant.id}/api-keys`, {
      name: "reader",
      permissions: ["PropertiesRead"],
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(Object.keys(created).sort()).toEqual(["created_at", "id", "key", "name", "permissions"]);
    expect(created.key).toMatch(/^pms_[A-Za-z0-9_-]{20,}$/);
    expect(created.permissions).toEqual(["PropertiesRead"]);

    // Only the hash is stored: no column of any row holds the secret.
    const rows = await w.sql.query("SELECT * FROM api_keys WHERE id = $1", [created.id]);
    expect(rows).toHaveLength(1);
    const secret = created.key.slice("pms_".length);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0].key_hash).toBe(createHash("sha256").update(created.key).digest("hex"));

    const list = await admin("GET", `/api/admin/tenants/${tenant.id}/api-keys`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toHaveLength(1);
    const [listed] = list.json();
    expect(listed.id).toBe(created.id);
    expect(listed.name).toBe("reader");
    expect(listed.permissions).toEqual(["PropertiesRead"]);
    expect(listed.key).toBeUndefined();
    expect(listed.key_hash).toBeUndefined();
    expect(list.body).not.toContain(secret);
    expect(list.headers["x-total-count"]).toBe("1");

    // The key works, with exactly its permissions, for its tenant.
    const as = { id: tenant.id, key: created.key };
    expect((await w.request("GET", "/api/widgets", { as })).statusCode).toBe(200);
    expect((await w.request("POST", "/api/widgets", { as, body: { name: "x" } })).statusCode).toBe(403);

    // Refusals.
    expect(
      (
        await admin("POST", `/api/admin/tenants/${randomUUID()}/api-keys`, {
          name: "k",
          permissions: ["LesseeRead"],
        })
      ).statusCode,
    ).toBe(404);
    expect((await admin("GET", `/api/admin/tenants/${randomUUID()}/api-keys`)).statusCode).toBe(404);
    expect((await admin("GET", "/api/admin/tenants/not-a-uuid/api-keys")).statusCode).toBe(400);
    for (const body of [
      { name: "k", permissions: ["Root"] },
      { name: "k", permissions: [] },
      { name: "k" },
      { permissions: ["LesseeRead"] },
      { name: "k", permissions: ["LesseeRead"], key: "pms_chosen_by_client_000000" },
    ]) {
      const bad = await admin("POST", `/api/admin/tenants/${tenant.id}/api-keys`, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().error).toBe("ValidationError");
    }
  });

  it("revokes a key with DELETE /api/admin/api-keys/{id}", async () => {
    const victim = await w.newTenant();
    expect((await w.request("GET", "/api/widgets", { as: victim })).statusCode).toBe(200);
    const res = await admin("DELETE", `/api/admin/api-keys/${victim.keyId}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    const [listed] = (await admin("GET", `/api/admin/tenants/${victim.id}/api-keys`)).json();
    expect(listed.revoked_at).toBeTruthy();
    await sleep(1100);
    expect((await w.request("GET", "/api/widgets", { as: victim })).statusCode).toBe(401);
    expect((await admin("DELETE", `/api/admin/api-keys/${randomUUID()}`)).statusCode).toBe(404);
    expect((await admin("DELETE", "/api/admin/api-keys/not-a-uuid")).statusCode).toBe(400);
  });

  it("lists projections with checkpoint and lag", async () => {
    const tenant = randomUUID();
    const p = await count(w.store, tenant, randomUUID(), [1, 2, 3]);
    expect(await w.platform.projections.waitFor(p, 10_000)).toBe(true);
    const res = await admin("GET", "/api/admin/projections");
    expect(res.statusCode).toBe(200);
    const list = res.json();
    const names = list.map((x: { name: string }) => x.name);
    expect(names).toEqual(expect.arrayContaining(["admin_counter", "test_widgets"]));
    const counter = list.find((x: { name: string }) => x.name === "admin_counter");
    expect(counter.version).toBe(1);
    expect(counter.checkpoint).toBe(`${p.commit}/${p.prepare}`);
    expect(counter.lag).toBe(0);
    expect(counter.events_applied).toBeGreaterThanOrEqual(3);

    // A poison event is set aside (quarantined) rather than stopping the projection: listed
    // with its error, no lag, and writes are read back at once (201, not 202).
    control.broken = true;
    try {
      const poisoned = randomUUID();
      const stuck = await count(w.store, tenant, poisoned, [1, 1], { poison: true });
      expect(await w.platform.projections.waitFor(stuck, 10_000)).toBe(true);
      const row = (await admin("GET", "/api/admin/projections"))
        .json()
        .find((x: { name: string }) => x.name === "admin_counter");
      expect(row.last_error).toBeNull();
      expect(row.quarantined).toBe(2);
      expect(row.quarantine.map((q: { stream_name: string }) => q.stream_name)).toEqual([
        `counter-${poisoned}`,
        `counter-${poisoned}`,
      ]);
      expect(row.quarantine[0].error).toContain("poisoned event");
      expect(row.quarantine[1].held_by).toBe(row.quarantine[0].event_id);
      const created = await w.request("POST", "/api/widgets", { body: { name: "beside the poison" } });
      expect(created.statusCode, created.body).toBe(201);

      // Fixed, the operator's retry applies both, in order.
      control.broken = false;
      const retried = await admin(
        "POST",
        `/api/admin/projections/admin_counter/quarantine/${row.quarantine[1].event_id}/retry`,
      );
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json()).toMatchObject({ status: "applied", error: null });
      const after = (await admin("GET", "/api/admin/projections"))
        .json()
        .find((x: { name: string }) => x.name === "admin_counter");
      expect(after.quarantined).toBe(0);
      const [counted] = await w.sql.query("SELECT events, total FROM admin_counter WHERE id = $1", [
        poisoned,
      ]);
      expect(counted).toMatchObject({ events: 2, total: 2 });
      // An unknown event or projection: 404.
      for (const url of [
        `/api/admin/projections/admin_counter/quarantine/${randomUUID()}/skip`,
        `/api/admin/projections/nope/quarantine/${row.quarantine[0].event_id}/retry`,
      ]) {
        expect((await admin("POST", url)).statusCode).toBe(404);
      }
    } finally {
      control.broken = false;
    }
  });

  it("rebuilds a projection through the job queue (202), and 404 for an unknown name", async () => {
    const tenant = randomUUID();
    const stream = randomUUID();
    const p = await count(w.store, tenant, stream, [4, 5]);
    expect(await w.platform.projections.waitFor(p, 10_000)).toBe(true);
    // Damage the read model: only a real rebuild from the log repairs it.
    await w.sql.query("UPDATE admin_counter SET events = 999, total = -1 WHERE id = $1", [stream]);
    const [before] = await w.sql.query(
      "SELECT updated_at, events_applied FROM projection_checkpoints WHERE name = 'admin_counter'",
    );

    const res = await admin("POST", "/api/admin/projections/admin_counter/rebuild");
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().projection).toBe("admin_counter");
    expect(res.json().job_id).toBeTruthy();

    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await w.sql.query("SELECT events FROM admin_counter WHERE id = $1", [stream]);
      if (row?.events === 2) break;
      if (Date.now() > deadline) throw new Error("the rebuild job did not run");
      await sleep(100);
    }
    const [after] = await w.sql.query(
      "SELECT updated_at, events_applied FROM projection_checkpoints WHERE name = 'admin_counter'",
    );
    expect(new Date(after.updated_at).getTime()).toBeGreaterThan(new Date(before.updated_at).getTime());
    expect(await readCounters(w.sql, "admin_counter")).toEqual(await expectedCounters(w.store));

    const unknown = await admin("POST", "/api/admin/projections/no_such_projection/rebuild");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe("NotFound");
    expect(unknown.json().message).toContain("no_such_projection");
  }, 60_000);
});
