import { describe, expect, it } from "vitest";
import { renderAmendmentNotice } from "../../src/commands/amendmentNotices/template.ts";
import { messageDecider } from "../../src/commands/messages/resolve.ts";
import {
  evolveMessage,
  initialMessageState,
  isAbandoned,
  isDue,
  type MessageEvent,
} from "../../src/events/messages.ts";
import { loadConfig, senderOf } from "../../src/platform/config.ts";
import { outboxLoop } from "../../src/platform/outbox/outboxLoop.ts";
import { missingVariables } from "../../src/queries/settings.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

/** The message stream's fold and the operator's resolution, without a database. */
const id = "0b7d3e8e-4a2f-4c59-9b1e-2f0a8c6d5e41";
const queued: MessageEvent = {
  type: "MessageQueued",
  data: {
    message_id: id,
    channel: "email",
    to: [{ email: "camille.martin@example.fr", name: "Camille Martin" }],
    from: null,
    subject: "Avis",
    text: "Bonjour",
    html: null,
    attachments: [],
    topic: "rent-reminder",
    related: { kind: "rent_call", id: "c1" },
  },
};
const started = (attempt: number, expires = "2026-11-02T09:05:00.000Z"): MessageEvent => ({
  type: "MessageSendStarted",
  data: { message_id: id, attempt, started_at: "2026-11-02T09:00:00.000Z", claim_expires_at: expires },
});
const transmitted: MessageEvent = { type: "MessageContentTransmitted", data: { message_id: id, attempt: 1 } };
const failed = (will_retry: boolean): MessageEvent => ({
  type: "MessageDeliveryFailed",
  data: {
    message_id: id,
    attempt: 1,
    error: "451 Try again later",
    will_retry,
    next_attempt_at: will_retry ? "2026-11-02T09:01:00.000Z" : null,
    failed_at: "2026-11-02T09:00:00.000Z",
  },
});
const unknown: MessageEvent = {
  type: "MessageOutcomeUnknown",
  data: { message_id: id, attempt: 1, reason: "claim expired", detected_at: "2026-11-02T09:06:00.000Z" },
};
const fold = (events: MessageEvent[]) => events.reduce(evolveMessage, initialMessageState());
const at = (iso: string) => new Date(iso);

describe("message fold", () => {
  it("is due when queued, and after a transient failure from its next attempt on", () => {
    expect(isDue(fold([queued]), at("2026-11-02T09:00:00Z"))).toBe(true);
    const retrying = fold([queued, started(1), failed(true)]);
    expect(retrying).toMatchObject({
      status: "RETRY_SCHEDULED",
      attempts: 1,
      last_error: "451 Try again later",
    });
    expect(isDue(retrying, at("2026-11-02T09:00:59.999Z"))).toBe(false);
    expect(isDue(retrying, at("2026-11-02T09:01:00.000Z"))).toBe(true);
  });

  it("is never due once sending, delivered, FAILED or UNCERTAIN", () => {
    const later = at("2030-01-01T00:00:00Z");
    const delivered: MessageEvent = {
      type: "MessageDelivered",
      data: { message_id: id, attempt: 1, provider_message_id: "Q1", delivered_at: "2026-11-02T09:00:01Z" },
    };
    for (const events of [
      [queued, started(1)],
      [queued, started(1), delivered],
      [queued, started(1), failed(false)],
      [queued, started(1), transmitted, unknown],
    ])
      expect(isDue(fold(events), later)).toBe(false);
    expect(fold([queued, started(1), delivered])).toMatchObject({
      status: "DELIVERED",
      provider_message_id: "Q1",
    });
    expect(fold([queued, started(1), failed(false)]).status).toBe("FAILED");
  });

  it("a claim is abandoned from its expiry on; the end of data is remembered per attempt", () => {
    const sending = fold([queued, started(1), transmitted]);
    expect(sending.transmitted).toBe(true);
    expect(isAbandoned(sending, at("2026-11-02T09:04:59.999Z"))).toBe(false);
    expect(isAbandoned(sending, at("2026-11-02T09:05:00.000Z"))).toBe(true);
    expect(fold([queued, started(1), transmitted, failed(true), started(2)]).transmitted).toBe(false);
    expect(isAbandoned(fold([queued]), at("2030-01-01T00:00:00Z"))).toBe(false);
  });
});

describe("resolving an UNCERTAIN message", () => {
  const spec = deciderSpec(messageDecider);
  const resolve = (resolution: "DELIVERED" | "RESEND") => ({
    type: "ResolveMessageOutcome" as const,
    message_id: id,
    resolution,
    now: "2026-11-03T10:00:00.000Z",
  });

  it("records the operator's word; RESEND queues it again", () => {
    const resolved = (resolution: "DELIVERED" | "RESEND"): MessageEvent => ({
      type: "MessageOutcomeResolved",
      data: { message_id: id, resolution, resolved_at: "2026-11-03T10:00:00.000Z" },
    });
    spec
      .given([queued, started(1), transmitted, unknown])
      .when(resolve("RESEND"))
      .then([resolved("RESEND")]);
    spec
      .given([queued, started(1), transmitted, unknown])
      .when(resolve("DELIVERED"))
      .then([resolved("DELIVERED")]);
    const again = fold([queued, started(1), transmitted, unknown, resolved("RESEND")]);
    expect(again.status).toBe("QUEUED");
    expect(isDue(again, at("2026-11-03T10:00:00Z"))).toBe(true);
    expect(fold([queued, started(1), transmitted, unknown, resolved("DELIVERED")]).status).toBe("DELIVERED");
  });

  it("refuses any other message: 409, or 404 when there is none", () => {
    spec
      .given([queued])
      .when(resolve("RESEND"))
      .thenRefuses(409, /is QUEUED: only an UNCERTAIN message/);
    spec
      .given([queued, started(1), failed(false)])
      .when(resolve("DELIVERED"))
      .thenRefuses(409, /is FAILED/);
    spec
      .given([])
      .when(resolve("RESEND"))
      .thenRefuses(404, /Message .* not found/);
  });
});

describe("configuration and template", () => {
  it("reads SMTP_FROM with or without a display name; refuses a bad SMTP_URL", () => {
    expect(senderOf("Gestion Dupont <gestion@dupont-immo.fr>")).toEqual({
      email: "gestion@dupont-immo.fr",
      name: "Gestion Dupont",
    });
    expect(senderOf("gestion@dupont-immo.fr")).toEqual({ email: "gestion@dupont-immo.fr", name: null });
    expect(() => loadConfig({ SMTP_URL: "http://mail.example.fr" })).toThrow(/SMTP_URL must be an smtp/);
    expect(() => loadConfig({ SMTP_FROM: "not an address" })).toThrow(/SMTP_FROM must be an address/);
  });

  it("without SMTP_URL the deliverer sends nothing and says so once", async () => {
    const lines: string[] = [];
    const step = await outboxLoop.open({
      sql: null as never,
      store: null as never,
      config: loadConfig({}),
      log: { info: (m) => lines.push(m), error: () => {} },
    });
    expect(await step.run()).toBe(0);
    expect(lines).toEqual([
      "outbox: SMTP_URL is not set, messages stay QUEUED until a worker starts with it",
    ]);
  });

  it("renders the built-in amendment notice for each status", () => {
    const context = {
      landlord: { name: "SCI Les Tilleuls", address: "12 rue des Lilas, 75011 Paris" },
      lessee: { first_name: "Camille", last_name: "Martin", legal_name: null, email: "c@example.fr" },
      lessees: [],
      lease: { id: "L1", reference: "L1" },
      estate: { address: "12 rue des Lilas, Lyon" },
      amendment: {
        title: "Avenant n°1",
        status: "VALIDATED" as const,
        effective_date: "2026-01-01",
        reason: null,
      },
      sender: { name: "Gestion Dupont", email: "gestion@dupont-immo.fr" },
    };
    expect(missingVariables("amendment-notice", { ...context, lessees: [context.lessee] })).toEqual([]);
    const validated = renderAmendmentNotice(context);
    expect(validated.subject).toBe("Avenant à votre bail validé : Avenant n°1");
    expect(validated.text).toContain("Bonjour Camille Martin,");
    expect(validated.text).toContain(
      "(12 rue des Lilas, Lyon) « Avenant n°1 » est validé. Il prend effet le 1er janvier 2026.",
    );
    // No tenant listed (this context has none): no empty « Locataire(s) : » line.
    expect(validated.text).not.toContain("Locataire(s)");
    expect(renderAmendmentNotice({ ...context, lessees: [context.lessee] }).text).toContain(
      "Locataire(s) : Camille Martin\n",
    );
    expect(validated.text).not.toContain("Motif");
    const rejected = renderAmendmentNotice({
      ...context,
      amendment: { ...context.amendment, status: "REJECTED", reason: "Date contestée" },
    });
    expect(rejected.text).toContain("est refusé ; le bail reste inchangé.");
    expect(rejected.text).toContain("Motif : Date contestée");
    // A tenant's own source sees the variables every template of the settings area sees.
    const own = renderAmendmentNotice(
      { ...context, lessees: [context.lessee] },
      "{{landlord.name}} / {{#each lessees}}{{email}}{{/each}} / {{estate.address}} / {{lease.reference}} / {{amendment.status}} / {{sender.email}}",
    );
    expect(own.text).toBe(
      "SCI Les Tilleuls / c@example.fr / 12 rue des Lilas, Lyon / L1 / VALIDATED / gestion@dupont-immo.fr",
    );
  });
});
