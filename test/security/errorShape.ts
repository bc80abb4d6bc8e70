import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";

const ERROR_NAMES = [
  "ValidationError",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "Conflict",
  "PreconditionFailed",
  "PayloadTooLarge",
  "UnsupportedMediaType",
  "UnprocessableEntity",
  "TooManyRequests",
  "InternalError",
];

/** A refusal is in the docs/design.md §4 shape, `{error, message, details?}`, no framework fields. */
export function expectErrorShape(res: Pick<LightMyRequestResponse, "statusCode" | "body">): void {
  if (res.statusCode < 400) return;
  const body = JSON.parse(res.body);
  expect(ERROR_NAMES, res.body).toContain(body.error);
  expect(typeof body.message, res.body).toBe("string");
  expect(
    Object.keys(body).filter((k) => !["error", "message", "details"].includes(k)),
    res.body,
  ).toEqual([]);
  if (body.details !== undefined) {
    for (const d of body.details) expect(Object.keys(d).sort(), res.body).toEqual(["field", "message"]);
  }
}
