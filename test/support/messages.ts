import { eventually } from "./eventually.ts";
import type { TestApp, TestTenant } from "./testApp.ts";

/**
 * GET /api/messages/{id} once the outbox's read model shows the message, and `until` holds of it
 * (it follows the message's events a moment later). The answer, as a response.
 */
export const messageOnce = (
  t: TestApp,
  id: string,
  options: { as?: TestTenant; until?: (message: Record<string, unknown>) => boolean } = {},
) =>
  eventually(
    () => t.request("GET", `/api/messages/${id}`, options.as ? { as: options.as } : {}),
    (r) => r.statusCode === 200 && (options.until?.(r.json()) ?? true),
  );

/** The message once its personal data was erased. */
export const erasedMessage = (t: TestApp, id: string) =>
  messageOnce(t, id, { until: (m) => m.erased_at !== null });
