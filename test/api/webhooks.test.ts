import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { createApiKey } from "../../src/platform/tenants/tenants.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Overdue {
  type: string;
  data: { lease_id: string; due_date: string };
}

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A real HTTP receiver: records each request; `answers[path]` gives the statuses to answer in turn;
 * a request to a path in `hang` gets no answer until `release()` (a receiver that hangs).
 */
async function receiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const hang = new Set<string>();
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers as Record<string, string>, body });
      if (hang.has(path)) {
        held.push(res);
        return;
      }
      const queue = answers.get(path) ?? [];
      res.statusCode = queue.length > 0 ? (queue.shift() as number) : 200;
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const release = () => {
    for (const res of held.splice(0)) res.end("late");
  };
  return {
    base,
    received,
    answers,
    hang,
    release,
    close: () => {
      release();
      return new Promise((r) => server.close(r));
    },
  };
}

/** Outbound webhooks (docs/webhooks.md): real deliveries to a real receiver, by the worker loop. */
describe("outbound webhooks", () => {
  let t: TestApp;
  let r: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    r = await receiver();
    t = await createTestApp(
      "postgres",
      {
        PMS_WEBHOOKS_ALLOW_LOCALHOST: "true",
        PMS_WEBHOOK_RETRY_SECONDS: "0,0",
        PMS_WEBHOOK_DISABLE_AFTER: "2",
        PMS_WEBHOOK_OVERDUE_SCAN_SECONDS: "0",
        PMS_OUTBOX_POLL_MS: "50",
      },
      { loops: true },
    );
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
  });
  const { newLease, setStatus } = leaseFixtures(() => t);

  const eventually = async <T>(read: () => Promise<T> | T, done: (value: T) => boolean) => {
    const end = Date.now() + 20_000;
    let value = await read();
    while (!done(value) && Date.now() < end) {
      await sleep(50);
      value = await read();
    }
    expect(done(value), JSON.stringify(value)).toBe(true);
    return value;
  };
  const subscribe = async (path: string, events: string[], as = t.tenant) => {
    const res = await t.request("POST", "/api/webhook-subscriptions", {
      body: { url: `${r.base}${path}`, events },
      as,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string; status: string };
  };
  const at = (path: string) => r.received.filter((x) => x.path === path);
  const deliveries = async (id: string) =>
    (await t.request("GET", `/api/webhook-subscriptions/${id}/deliveries`)).json() as {
      event_type: string;
      status: string;
      attempts: number;
      webhook_id: string;
      attempt_log: { attempt: number; status_code: number | null; error: string | null }[];
    }[];

  it("answers the secret once: GET one and the list never show it", async () => {
    const sub = await subscribe("/once", ["payment.recorded"]);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(sub.status).toBe("ENABLED");
    const one = await t.request("GET", `/api/webhook-subscriptions/${sub.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).not.toHaveProperty("secret");
    expect(one.body).not.toContain(sub.secret);
    const list = await t.request("GET", "/api/webhook-subscriptions");
    expect(list.body).not.toContain(sub.secret);
    expect(list.json().map((s: { id: string }) => s.id)).toContain(sub.id);
  });

  it("sends a lease status change signed: the package's verify accepts it, a wrong secret fails; event types filtered", async () => {
    const sub = await subscribe("/leases", ["lease.status_changed"]);
    const payments = await subscribe("/payments-only", ["payment.recorded"]);
    const lease = await newLease({ payment_day: 5 });
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    const [hit] = await eventually(
      () => at("/leases"),
      (x) => x.length >= 1,
    );
    const payload = new Webhook(sub.secret).verify(hit.body, hit.headers) as {
      type: string;
      data: { lease_id: string; status: string };
    };
    expect(payload.type).toBe("lease.status_changed");
    expect(payload.data).toMatchObject({ lease_id: lease.id, status: "ACTIVE" });
    expect(hit.headers["webhook-id"]).toMatch(/^msg_/);
    expect(() => new Webhook(payments.secret).verify(hit.body, hit.headers)).toThrow();
    await eventually(
      () => deliveries(sub.id),
      (d) => d.length === 1 && d[0].status === "DELIVERED",
    );
    // The payments-only subscription got nothing of the lease.
    expect(at("/payments-only")).toHaveLength(0);
    expect(await deliveries(payments.id)).toHaveLength(0);
  });

  it("retries after a 500 and then records the success, with the same webhook-id; payment.recorded sent", async () => {
    r.answers.set("/flaky", [500]);
    const sub = await subscribe("/flaky", ["payment.recorded"]);
    const lease = await newLease({ payment_day: 5 });
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    const pay = await t.request("POST", `/api/leases/${lease.id}/payments`, {
      body: { method: "VIREMENT_BANCAIRE", paid_on: "2025-02-10", amount: 100 },
    });
    expect(pay.statusCode, pay.body).toBe(201);
    const [d] = await eventually(
      () => deliveries(sub.id),
      (x) => x.length === 1 && x[0].status === "DELIVERED",
    );
    expect(d.attempts).toBe(2);
    expect(d.attempt_log.map((a) => a.status_code)).toEqual([500, 200]);
    const hits = at("/flaky");
    expect(hits).toHaveLength(2);
    expect(hits[0].headers["webhook-id"]).toBe(hits[1].headers["webhook-id"]);
    const body = new Webhook(sub.secret).verify(hits[1].body, hits[1].headers) as {
      type: string;
      data: { amount: number };
    };
    expect(body).toMatchObject({ type: "payment.recorded", data: { amount: 100 } });
  });

  it("a claim left by a killed worker is taken over: the same webhook-id is sent again; a DELIVERED row never is", async () => {
    const sub = await subscribe("/killed", ["payment.recorded"]);
    expect((await t.request("POST", `/api/webhook-subscriptions/${sub.id}/test`)).statusCode).toBe(202);
    await eventually(
      () => deliveries(sub.id),
      (x) => x.length === 1 && x[0].status === "DELIVERED",
    );
    await sleep(300); // passes of the deliverer: nothing delivered is sent again
    expect(at("/killed")).toHaveLength(1);
    // As a worker killed after its POST, before recording the answer: SENDING, its claim expired.
    await t.sql.query(
      "UPDATE webhook_deliveries SET status = 'SENDING', claimed_until = now() - interval '1 second' WHERE subscription_id = $1",
      [sub.id],
    );
    await eventually(
      () => at("/killed"),
      (x) => x.length === 2,
    );
    const [first, second] = at("/killed");
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    const [d] = await eventually(
      () => deliveries(sub.id),
      (x) => x[0].status === "DELIVERED" && x[0].attempts === 2,
    );
    expect(d.attempt_log).toHaveLength(2);
  });

  it("a hanging receiver holds back no other delivery; the attempt under way is in the log (issue 38)", async () => {
    r.hang.add("/hang");
    r.answers.set("/flaky", [500]);
    const hanging = await subscribe("/hang", ["payment.recorded"]);
    const flaky = await subscribe("/flaky", ["payment.recorded"]);
    const started = Date.now();
    expect((await t.request("POST", `/api/webhook-subscriptions/${hanging.id}/test`)).statusCode).toBe(202);
    await eventually(
      () => at("/hang"),
      (x) => x.length === 1,
    );
    expect((await t.request("POST", `/api/webhook-subscriptions/${flaky.id}/test`)).statusCode).toBe(202);
    // The 500 is retried at once (PMS_WEBHOOK_RETRY_SECONDS "0,0") while /hang still waits for
    // its answer (15 s time-out): the two deliveries do not wait on each other.
    const [done] = await eventually(
      () => deliveries(flaky.id),
      (x) => x[0]?.status === "DELIVERED",
    );
    expect(done.attempt_log.map((a) => a.status_code)).toEqual([500, 200]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The attempt under way is already in the log, with no outcome yet.
    const [waiting] = await deliveries(hanging.id);
    expect(waiting).toMatchObject({ status: "SENDING", attempts: 1 });
    expect(waiting.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: expect.stringMatching(/under way/) }),
    ]);
    // Its worker "killed" (the claim expires): the next attempt is taken over and recorded, and
    // the cut one stays in the log. The late answer to the first attempt records nothing.
    r.hang.delete("/hang");
    await t.sql.query(
      "UPDATE webhook_deliveries SET claimed_until = now() - interval '1 second' WHERE subscription_id = $1",
      [hanging.id],
    );
    const [after] = await eventually(
      () => deliveries(hanging.id),
      (x) => x[0]?.status === "DELIVERED",
    );
    r.release();
    await sleep(200);
    const [final] = await deliveries(hanging.id);
    expect(final.attempts).toBe(2);
    expect(final.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: expect.stringMatching(/under way/) }),
      expect.objectContaining({ attempt: 2, status_code: 200, error: null }),
    ]);
    expect(after.attempt_log).toHaveLength(2);
  });

  it("a test event goes to the tested subscription; repeated failures disable the subscription", async () => {
    r.answers.set("/down", Array(20).fill(500));
    const sub = await subscribe("/down", ["payment.recorded"]);
    for (let i = 0; i < 2; i++) {
      const res = await t.request("POST", `/api/webhook-subscriptions/${sub.id}/test`);
      expect(res.statusCode, res.body).toBe(202);
      await eventually(
        () => deliveries(sub.id),
        (x) => x.length === i + 1 && x.every((d) => d.status === "FAILED"),
      );
    }
    // Two messages, each failing its 3 attempts (PMS_WEBHOOK_RETRY_SECONDS "0,0"), disable it (DISABLE_AFTER 2).
    expect(at("/down")).toHaveLength(6);
    expect(JSON.parse(at("/down")[0].body).type).toBe("webhook.test");
    const one = await eventually(
      async () => (await t.request("GET", `/api/webhook-subscriptions/${sub.id}`)).json(),
      (s) => s.status === "DISABLED",
    );
    expect(one.disabled_reason).toMatch(/failed/);
    expect((await t.request("POST", `/api/webhook-subscriptions/${sub.id}/test`)).statusCode).toBe(409);
    // Enabled again, failures before count no more: one more failed message does not disable it.
    const put = await t.request("PUT", `/api/webhook-subscriptions/${sub.id}`, { body: { enabled: true } });
    expect(put.json()).toMatchObject({ status: "ENABLED", disabled_reason: null });
    expect((await t.request("POST", `/api/webhook-subscriptions/${sub.id}/test`)).statusCode).toBe(202);
    await eventually(
      () => deliveries(sub.id),
      (x) => x.length === 3 && x.every((d) => d.status === "FAILED"),
    );
    await sleep(300);
    expect((await t.request("GET", `/api/webhook-subscriptions/${sub.id}`)).json().status).toBe("ENABLED");
  });

  it("sends rent_call.overdue once per call", async () => {
    const sub = await subscribe("/overdue", ["rent_call.overdue"]);
    const lease = await newLease({ payment_day: 5 });
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-02-15", tenantId: t.tenant.id },
    );
    const wh = new Webhook(sub.secret);
    const ofLease = () =>
      at("/overdue")
        .map((h) => ({ id: h.headers["webhook-id"], body: wh.verify(h.body, h.headers) as Overdue }))
        .filter((h) => h.body.data.lease_id === lease.id);
    // Calls due 2025-01-05 and 2025-02-05, unpaid: both overdue today.
    await eventually(ofLease, (x) => x.length >= 2);
    await sleep(500); // more passes of the deliverer (a scan each): nothing is sent again
    const hits = ofLease();
    expect(hits.map((h) => h.body.data.due_date).sort()).toEqual(["2025-01-05", "2025-02-05"]);
    expect(hits.every((h) => h.body.type === "rent_call.overdue")).toBe(true);
    const ids = at("/overdue").map((h) => h.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("refuses bad URLs and event types with 400, changing nothing", async () => {
    const before = (await t.request("GET", "/api/webhook-subscriptions")).headers["x-total-count"];
    for (const body of [
      { url: "http://example.com/hook", events: ["payment.recorded"] },
      { url: "https://10.0.0.1/hook", events: ["payment.recorded"] },
      { url: "https://169.254.169.254/latest", events: ["payment.recorded"] },
      { url: "https://[fe80::1]/hook", events: ["payment.recorded"] },
      { url: "https://user:pw@example.com/hook", events: ["payment.recorded"] },
      { url: "not a url", events: ["payment.recorded"] },
      { url: "https://example.com/hook", events: ["nope"] },
      { url: "https://example.com/hook", events: [] },
    ]) {
      const res = await t.request("POST", "/api/webhook-subscriptions", { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const sub = await subscribe("/ok", ["payment.recorded"]);
    const put = await t.request("PUT", `/api/webhook-subscriptions/${sub.id}`, {
      body: { url: "https://192.168.1.1/x" },
    });
    expect(put.statusCode).toBe(400);
    expect((await t.request("GET", `/api/webhook-subscriptions/${sub.id}`)).json().url).toBe(`${r.base}/ok`);
    expect((await t.request("GET", "/api/webhook-subscriptions")).headers["x-total-count"]).toBe(
      String(Number(before) + 1),
    );
  });

  it("keeps tenants apart and checks permissions", async () => {
    const sub = await subscribe("/mine", ["payment.recorded"]);
    for (const [method, url] of [
      ["GET", `/api/webhook-subscriptions/${sub.id}`],
      ["GET", `/api/webhook-subscriptions/${sub.id}/deliveries`],
      ["PUT", `/api/webhook-subscriptions/${sub.id}`],
      ["DELETE", `/api/webhook-subscriptions/${sub.id}`],
      ["POST", `/api/webhook-subscriptions/${sub.id}/test`],
    ]) {
      const res = await t.request(method, url, { as: t.other, ...(method === "PUT" ? { body: {} } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await t.request("GET", "/api/webhook-subscriptions", { as: t.other })).json()).toEqual([]);
    const readOnly = await createApiKey(t.sql, t.tenant.id, "read", ["SettingsRead"]);
    const as = { id: t.tenant.id, key: readOnly.key };
    expect((await t.request("GET", `/api/webhook-subscriptions/${sub.id}`, { as })).statusCode).toBe(200);
    const post = await t.request("POST", "/api/webhook-subscriptions", {
      as,
      body: { url: `${r.base}/x`, events: ["payment.recorded"] },
    });
    expect(post.statusCode).toBe(403);
    const none = await createApiKey(t.sql, t.tenant.id, "none", ["LeasesRead"]);
    expect(
      (await t.request("GET", "/api/webhook-subscriptions", { as: { id: t.tenant.id, key: none.key } }))
        .statusCode,
    ).toBe(403);
    expect((await t.request("DELETE", `/api/webhook-subscriptions/${sub.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/webhook-subscriptions/${sub.id}`)).statusCode).toBe(404);
  });
});

/** The production default (PMS_WEBHOOKS_ALLOW_LOCALHOST unset): no spelling of this machine is a receiver. */
describe("outbound webhooks: this machine refused (issue 38)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => t?.close());

  it("refuses localhost and its other spellings with 400, as at delivery", async () => {
    for (const url of [
      "https://localhost:4443/hook",
      "https://localhost.:4443/hook",
      "https://LOCALHOST/hook",
      "https://127.1/hook",
      "https://0x7f.1/hook",
      "https://2130706433/hook",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://0.0.0.0/hook",
      "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/hook",
    ]) {
      const res = await t.request("POST", "/api/webhook-subscriptions", {
        body: { url, events: ["payment.recorded"] },
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details[0], url).toMatchObject({
        field: "url",
        message: expect.stringMatching(/this machine/),
      });
    }
    expect((await t.request("GET", "/api/webhook-subscriptions")).json()).toEqual([]);
  });
});

/**
 * The default retry schedule (docs/webhooks.md, "How it works"): the waits grow, the last attempt
 * falls about 24 hours after the first, then the delivery is FAILED. Time is not waited for: after
 * each failed attempt the test checks the scheduled time the delivery log shows, then makes the
 * row due at once (the clock the deliverer reads is the database's `now()`).
 */
describe("outbound webhooks: the default retries", () => {
  let t: TestApp;
  let r: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    r = await receiver();
    t = await createTestApp(
      "postgres",
      {
        PMS_WEBHOOKS_ALLOW_LOCALHOST: "true",
        PMS_WEBHOOK_OVERDUE_SCAN_SECONDS: "0",
        PMS_OUTBOX_POLL_MS: "50",
      },
      { loops: true },
    );
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
  });

  interface Delivery {
    id: string;
    status: string;
    attempts: number;
    next_attempt_at: string | null;
    attempt_log: { attempt: number; started_at: string; status_code: number | null }[];
  }

  it("backs off 5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h (≈ 23.6 h in all), then FAILED; one failed message does not disable", async () => {
    const waits = [5, 300, 1800, 7200, 18000, 28800, 28800];
    expect(waits.reduce((a, b) => a + b, 0) / 3600).toBeGreaterThan(23);
    expect(waits.reduce((a, b) => a + b, 0) / 3600).toBeLessThanOrEqual(24);
    r.answers.set("/down", Array(20).fill(503));
    const res = await t.request("POST", "/api/webhook-subscriptions", {
      body: { url: `${r.base}/down`, events: ["payment.recorded"] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sub = res.json() as { id: string };
    expect((await t.request("POST", `/api/webhook-subscriptions/${sub.id}/test`)).statusCode).toBe(202);
    const log = async () =>
      ((await t.request("GET", `/api/webhook-subscriptions/${sub.id}/deliveries`)).json() as Delivery[])[0];
    const attemptDone = async (attempts: number) => {
      for (let tries = 0; tries < 400; tries++) {
        const d = await log();
        if (d && d.attempts === attempts && d.status !== "SENDING" && d.status !== "PENDING") return d;
        await sleep(50);
      }
      throw new Error(`no attempt ${attempts}: ${JSON.stringify(await log())}`);
    };
    for (const [i, wait] of waits.entries()) {
      const d = await attemptDone(i + 1);
      expect(d.status).toBe("RETRY_SCHEDULED");
      expect(d.attempt_log.map((a) => a.status_code)).toEqual(Array(i + 1).fill(503));
      // Scheduled `wait` seconds after the attempt was recorded (a few ms after it started).
      const scheduledIn =
        (Date.parse(d.next_attempt_at ?? "") - Date.parse(d.attempt_log[i].started_at)) / 1000;
      expect(scheduledIn).toBeGreaterThanOrEqual(wait);
      expect(scheduledIn).toBeLessThan(wait + 15);
      await t.sql.query("UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1", [d.id]);
    }
    const last = await attemptDone(waits.length + 1);
    expect(last.status).toBe("FAILED");
    expect(last.next_attempt_at).toBeNull();
    expect(r.received.filter((x) => x.path === "/down")).toHaveLength(8);
    // One message failed: below PMS_WEBHOOK_DISABLE_AFTER (5), the subscription stays on.
    expect((await t.request("GET", `/api/webhook-subscriptions/${sub.id}`)).json().status).toBe("ENABLED");
  }, 60_000);
});
