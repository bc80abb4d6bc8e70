/**
 * The outbox's message events are the platform's (src/platform/outbox/messageEvents.ts, docs/messages.md):
 * the areas that queue, read or resolve messages import them from here.
 */
export * from "../platform/outbox/messageEvents.ts";
