/**
 * What every operation of the API description shares, written once (openapi.ts): the status
 * texts, the errors of docs/architecture.md §4 as named responses, the response headers and the
 * request header parameters.
 */

export type Json = Record<string, any>;

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const STATUS_TEXTS: Record<string, string> = {
  "200": "OK",
  "201": "Created (the Location header names it)",
  "202": "Accepted: written, not yet readable; GET the Location later",
  "204": "No content",
};

/** The errors of docs/architecture.md §4, each a named response sharing the `Error` schema. */
export const ERRORS: Record<string, { name: string; error: string; description: string; message: string }> = {
  "400": {
    name: "BadRequest",
    error: "ValidationError",
    description: "The body, query or path fails its schema or a field rule (details name each field)",
    message: "Invalid estate data",
  },
  "401": {
    name: "Unauthorized",
    error: "Unauthorized",
    description: "Missing, malformed, unknown or revoked key",
    message: "Missing API key",
  },
  "403": {
    name: "Forbidden",
    error: "Forbidden",
    description: "The key lacks the permission the operation needs (named in the message)",
    message: "This API key lacks the PropertiesWrite permission",
  },
  "404": {
    name: "NotFound",
    error: "NotFound",
    description: "An id in the path is unknown to the caller's tenant",
    message: "Estate 2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001 not found",
  },
  "409": {
    name: "Conflict",
    error: "Conflict",
    description: "The state forbids it: a status transition, a blocked delete, a duplicate, a lost race",
    message: "The resource was changed concurrently; retry",
  },
  "412": {
    name: "PreconditionFailed",
    error: "PreconditionFailed",
    description: "If-Match does not match the resource's current revision",
    message: "If-Match does not match the current ETag",
  },
  "413": {
    name: "PayloadTooLarge",
    error: "PayloadTooLarge",
    description: "Body over the limit (JSON 1 MiB, upload 20 MiB, bulk 1000 items)",
    message: "Request body is too large",
  },
  "415": {
    name: "UnsupportedMediaType",
    error: "UnsupportedMediaType",
    description: "Wrong content type",
    message: "Expected application/json",
  },
  "429": {
    name: "TooManyRequests",
    error: "TooManyRequests",
    description: "Rate limit of the key reached",
    message: "Rate limit exceeded for this API key",
  },
  "503": {
    name: "ServiceUnavailable",
    error: "ServiceUnavailable",
    description: "The database cannot take the request now; retry later",
    message: "The service is temporarily unavailable",
  },
};
export const RANGES: Record<string, { name: string; error: string; description: string; message: string }> = {
  "4XX": {
    name: "ClientError",
    error: "UnprocessableEntity",
    description: "Any other client error (402 PaymentRequired, 422 business rules...), same shape",
    message: "The deposit exceeds the legal cap",
  },
  "5XX": {
    name: "ServerError",
    error: "InternalError",
    description: "A defect (500), never with a stack trace or SQL",
    message: "Internal server error",
  },
};

export const errorResponse = (e: { error: string; description: string; message: string }) => ({
  description: e.description,
  content: {
    "application/json": {
      schema: ref("schemas", "Error"),
      example: { error: e.error, message: e.message },
    },
  },
});

export const HEADERS: Json = {
  ETag: {
    description:
      'The resource\'s version: W/"<stream revision>", or W/"<revision>-<digest>" where the answer also shows what other streams change. Send it back in If-Match.',
    schema: { type: "string", example: 'W/"3"' },
  },
  XTotalCount: {
    description: "How many items the whole list holds (every page)",
    schema: { type: "integer", minimum: 0, example: 42 },
  },
  Link: {
    description:
      'RFC 8288 links to the first, prev, next and last pages: `</api/estates?page=2&limit=100>; rel="next"`',
    schema: { type: "string" },
  },
  Location: {
    description: "Where the created (or accepted) resource is read",
    schema: {
      type: "string",
      format: "uri-reference",
      example: "/api/estates/2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001",
    },
  },
  ContentDisposition: {
    description: 'attachment; filename="…" (RFC 6266)',
    schema: { type: "string", example: 'attachment; filename="bail.pdf"' },
  },
};

export const PARAMETERS: Json = {
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description: "The ETag the change is based on: a 412 when the resource moved on since",
    schema: { type: "string", example: 'W/"3"' },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: "Replays the first answer to the same key and body; the same key with another body is a 409",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  },
};
