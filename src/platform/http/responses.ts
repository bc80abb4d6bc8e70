import { z } from "zod";
import { MEDIA_CONTENT_TYPES } from "../blobs/uploads.ts";

/**
 * Response schemas every area shares. A route declares its answers as
 * `response: { 200: thing, ...errorResponses }`: fastify serialises through them and
 * /api/openapi.json shows them (docs/decisions.md, "Responses in the contract").
 */

/** The error shape of every 4xx and 5xx (docs/decisions.md, "Responses in the contract"). */
export const errorBody = z
  .strictObject({
    error: z.string().describe("ValidationError, Unauthorized, Forbidden, NotFound, Conflict, ..."),
    message: z.string(),
    details: z.array(z.strictObject({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({
    id: "Error",
    description: "Error: {error, message, details?} (docs/architecture.md §4)",
    example: {
      error: "ValidationError",
      message: "Invalid estate data",
      details: [{ field: "area", message: "Must be > 0" }],
    },
  });

/** Spread into a route's `response`: one error shape for every client error. */
/**
 * Every route may also answer 503 ServiceUnavailable (the database cannot take the request now,
 * docs/decisions.md) or, on a defect, 500: both in the same error shape.
 */
export const errorResponses = { "4xx": errorBody, "5xx": errorBody } as const;

/** What a command answers when its read model lags past the read-your-writes bound. */
export const acceptedBody = z
  .strictObject({
    id: z.string().optional(),
    status: z.literal("accepted"),
    location: z.string().optional(),
  })
  .meta({
    id: "Accepted",
    description: "Accepted: written, not yet readable; GET the location later",
    example: {
      id: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001",
      status: "accepted",
      location: "/api/estates/2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001",
    },
  });

/** A 204 carries no body. */
export const noContent = z.undefined().describe("No content");

/** An instant as the API writes it: `Date.prototype.toISOString()`. */
export const timestamp = z.iso.datetime();

/** Free-form JSON a client stored (custom fields and the like): passed through untouched. */
export const freeForm = z.record(z.string(), z.unknown());

/** GET .../history: a stream's events, oldest first (see readHistory). */
export const historyBody = z.array(
  z
    .strictObject({
      type: z.string(),
      revision: z.number().int(),
      occurred_at: z.string(),
      actor_key_id: z.string().nullable(),
      correlation_id: z.string().nullable(),
      data: z.unknown(),
    })
    .meta({ id: "HistoryEvent", description: "An event of a resource's stream" }),
);

/** An uploaded file's bytes, as stored, with its content type (media, lease documents). */
export const fileBytes = z.unknown().meta({
  description: "The file's bytes",
  content: Object.fromEntries(
    MEDIA_CONTENT_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }]),
  ),
});

type Schema = z.ZodType;

/** GET: the thing, or a client error. */
export const answers = (body: Schema) => ({ 200: body, ...errorResponses });
/** POST that creates: 201 with the created thing, 202 while the read model catches up. */
export const createdAnswers = (body: Schema) => ({ 201: body, 202: acceptedBody, ...errorResponses });
/** PUT: 200 with the updated thing, 202 while the read model catches up. */
export const updatedAnswers = (body: Schema) => ({ 200: body, 202: acceptedBody, ...errorResponses });
/** DELETE: 204, or 202 while the read model catches up. */
export const deletedAnswers = { 204: noContent, 202: acceptedBody, ...errorResponses };

type Present<S extends z.ZodRawShape> = {
  [K in keyof S]: S[K] extends z.ZodOptional<infer T extends z.ZodType> ? T : S[K];
};

/**
 * A body's fields as a read-model row shows them: every field present (an unset one is null),
 * so the answer's shape is the request's, from the same zod definitions.
 */
export function rowShape<S extends z.ZodRawShape>(shape: S): Present<S> {
  const out: Record<string, z.ZodType> = {};
  for (const [key, schema] of Object.entries(shape)) {
    out[key] = (schema instanceof z.ZodOptional ? schema.unwrap() : schema) as z.ZodType;
  }
  return out as Present<S>;
}

/** A verdict of the law (src/law/verdict.ts) as the answers show it. */
export const verdictBody = z.strictObject({
  rule: z.string(),
  status: z.enum(["PASS", "FAIL", "UNKNOWN", "NOT_APPLICABLE"]),
  message: z.string(),
  legal_reference: z.string(),
  details: z.record(z.string(), z.unknown()),
});
