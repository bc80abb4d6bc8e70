import { describe, expect, it } from "vitest";
import { webhookSubscriptionDecider } from "../../src/commands/webhooks/decider.ts";
import {
  isLoopbackAddress,
  isPublicAddress,
  receiverOf,
  webhookUrlProblem,
} from "../../src/commands/webhooks/url.ts";
import type { WebhookSubscriptionEvent } from "../../src/events/webhooks.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** Webhook subscriptions without a database: the decider and the URL rule (docs/webhooks.md). */
const subscription_id = "6a1f1c4e-2b3d-4e5f-8a9b-0c1d2e3f4a5b";
const spec = deciderSpec(webhookSubscriptionDecider);
const created: WebhookSubscriptionEvent = {
  type: "WebhookSubscriptionCreated",
  data: {
    subscription_id,
    secret: "whsec_x",
    url: "https://hooks.example.com/a",
    events: ["payment.recorded"],
    description: null,
  },
};
const deleted: WebhookSubscriptionEvent = { type: "WebhookSubscriptionDeleted", data: { subscription_id } };
const disabled: WebhookSubscriptionEvent = {
  type: "WebhookSubscriptionDisabled",
  data: { subscription_id, reason: "failing" },
};

describe("webhook subscription decider", () => {
  it("records only what changed; enabling and disabling are their own events", () => {
    spec
      .given([created])
      .when({
        type: "UpdateWebhookSubscription",
        subscription_id,
        changes: { url: "https://hooks.example.com/a", events: ["lease.status_changed"] },
        enabled: true,
      })
      .then([
        {
          type: "WebhookSubscriptionUpdated",
          data: { subscription_id, changes: { events: ["lease.status_changed"] } },
        },
      ]);
    spec
      .given([created, disabled])
      .when({ type: "UpdateWebhookSubscription", subscription_id, changes: {}, enabled: true })
      .then([{ type: "WebhookSubscriptionEnabled", data: { subscription_id } }]);
  });

  it("refuses a test of a disabled subscription (409) and anything on a deleted one (404)", () => {
    spec
      .given([created, disabled])
      .when({ type: "TestWebhookSubscription", subscription_id })
      .thenRefuses(409);
    spec
      .given([created, deleted])
      .when({ type: "TestWebhookSubscription", subscription_id })
      .thenRefuses(404);
    spec
      .given([created, deleted])
      .when({ type: "DeleteWebhookSubscription", subscription_id })
      .thenRefuses(404);
  });

  it("disables once: a second disabling by the deliverer writes nothing", () => {
    spec
      .given([created, disabled])
      .when({ type: "DisableWebhookSubscription", subscription_id, reason: "again" })
      .thenNothing();
  });
});

describe("webhook URLs (SSRF)", () => {
  it("wants https to a public host; localhost only when allowed", () => {
    expect(webhookUrlProblem("https://hooks.example.com/x", false)).toBeNull();
    expect(webhookUrlProblem("http://hooks.example.com/x", false)).toMatch(/https/);
    expect(webhookUrlProblem("http://127.0.0.1:9000/x", false)).toMatch(/localhost/);
    expect(webhookUrlProblem("http://127.0.0.1:9000/x", true)).toBeNull();
    expect(webhookUrlProblem("http://localhost/x", true)).toBeNull();
    // Allowing this machine does not open the rest of the private network.
    expect(webhookUrlProblem("http://10.0.0.5/x", true)).toMatch(/https/);
    expect(webhookUrlProblem("https://10.0.0.5/x", true)).toMatch(/private/);
    expect(webhookUrlProblem("https://intranet/x", false)).toMatch(/public host/);
    expect(webhookUrlProblem("https://printer.local/x", false)).toMatch(/public host/);
  });

  it("tells private, loopback, link-local and mapped addresses from public ones", () => {
    for (const a of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "127.0.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:10.0.0.1",
    ])
      expect(isPublicAddress(a), a).toBe(false);
    for (const a of ["8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isPublicAddress(a), a).toBe(true);
  });

  it("refuses every spelling of this machine as it refuses localhost (issue 38)", () => {
    for (const url of [
      "https://localhost.:4443/x",
      "https://LocalHost/x",
      "https://LOCALHOST../x",
      "https://api.localhost/x",
      "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/x", // full-width IDN
      "https://localhost\u3002/x", // ideographic full stop
      "https://127.1/x",
      "https://0x7f.1/x",
      "https://0177.0.0.1/x",
      "https://2130706433/x",
      "https://127.255.255.254/x",
      "https://[::1]/x",
      "https://[0:0:0:0:0:0:0:1]/x",
      "https://[::ffff:127.0.0.1]/x",
      "https://0.0.0.0/x",
      "https://0/x",
      "https://[::]/x",
    ]) {
      expect(webhookUrlProblem(url, false), url).toMatch(/this machine/);
      expect(webhookUrlProblem(url, true), url).toBeNull();
    }
    // Mapped private and link-local addresses in their hex form are still private.
    for (const url of [
      "https://[::ffff:a00:1]/x",
      "https://[::ffff:169.254.169.254]/x",
      "https://[fd12::1]/x",
    ])
      expect(webhookUrlProblem(url, true), url).toMatch(/private/);
  });

  it("at delivery resolves the name and connects to the address it checked", async () => {
    expect(await receiverOf("https://localhost.:4443/x", false)).toEqual({
      problem: "must not point to this machine (localhost)",
    });
    // Allowed for tests: the name's loopback address is where the delivery connects.
    const local = await receiverOf("http://localhost:4443/x", true);
    expect(local).toMatchObject({ family: expect.any(Number) });
    expect(isLoopbackAddress((local as { address: string }).address)).toBe(true);
    expect(await receiverOf("https://[::ffff:7f00:1]:4443/x", true)).toMatchObject({
      address: "::ffff:7f00:1",
    });
    expect(await receiverOf("https://nowhere.invalid/x", false)).toEqual({
      problem: "nowhere.invalid does not resolve",
    });
  });
});
