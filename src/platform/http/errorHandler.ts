import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { isDatabaseUnavailable } from "../db.ts";
import { ApiError, validationError } from "../errors.ts";
import {
  AppendTooLargeError,
  StoreUnavailableError,
  StreamDeletedError,
  UndecodableEventError,
  WriteOutcomeUnknownError,
} from "../eventstore/eventStore.ts";
import { DuplicateEventIdError } from "../eventstore/postgres/appendToStream.ts";

/** Every failure leaves in the docs/design.md §4 shape; nothing internal (stack, SQL) leaks. */
export const errorHandler = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((raw, request, reply) => {
    // The docs' file server (@fastify/static 10) refuses some paths (`//`) with a 403: a file it
    // does not serve is not found, as the plain path is (docs/security.md, disguised paths).
    if ((raw as FastifyError).statusCode === 403 && request.routeOptions.url?.startsWith("/api/docs/static"))
      return reply.callNotFound();
    const error = toApiError(raw as FastifyError);
    if (error.code === "ValidationError" && (raw as { schemaPart?: string }).schemaPart === "body") {
      const custom = request.routeOptions.config?.invalidBodyMessage;
      if (custom) {
        const message = typeof custom === "function" ? custom(error.details ?? []) : custom;
        return reply.status(400).send(new ApiError("ValidationError", message, error.details).toBody());
      }
    }
    if (error.status >= 500) request.log.error({ err: raw }, "request failed");
    if (error.code === "TooManyRequests") reply.header("retry-after", reply.getHeader("retry-after") ?? "60");
    if (error.code === "ServiceUnavailable") reply.header("retry-after", "1");
    return reply.status(error.status).send(error.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send({ error: "NotFound", message: `Route ${request.method} ${request.url.split("?")[0]} not found` });
  });
});

function toApiError(error: FastifyError & { schemaPart?: string }): ApiError {
  if (error instanceof ApiError) return error;
  // An event id already written elsewhere: the request repeats another one's write (docs/decisions.md).
  if (error instanceof DuplicateEventIdError)
    return new ApiError("Conflict", "This write repeats events already recorded for another resource");
  // The event store's refusals and outages (docs/eventstoredb.md, "Errors").
  if (error instanceof StreamDeletedError)
    return new ApiError("Conflict", "The resource's stream was deleted for good; it cannot be written");
  if (error instanceof UndecodableEventError)
    return new ApiError(
      "Conflict",
      "The resource's stream ends with an event the service cannot read; it cannot be written until an operator repairs it",
    );
  if (error instanceof AppendTooLargeError)
    return new ApiError("PayloadTooLarge", "The change is over the event store's size limit for one write");
  if (error instanceof WriteOutcomeUnknownError)
    return new ApiError(
      "ServiceUnavailable",
      "The event store did not confirm the write; retry with the same Idempotency-Key",
    );
  if (error instanceof StoreUnavailableError)
    return new ApiError("ServiceUnavailable", "The event store is unavailable; retry shortly");
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError("UnsupportedMediaType", "Unsupported content type; send application/json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
    case "FST_REQ_FILE_TOO_LARGE":
    case "FST_FILES_LIMIT":
    case "FST_PARTS_LIMIT":
      return new ApiError("PayloadTooLarge", "Request body is too large");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return validationError("Request body is empty", [{ field: "body", message: "Expected a JSON body" }]);
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return validationError("Malformed JSON body", [{ field: "body", message: error.message }]);
    case "FST_ERR_VALIDATION":
      return validationError(error.message);
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return new ApiError("UnsupportedMediaType", "Expected multipart/form-data");
  }
  // busboy's words for a broken multipart body (no boundary, truncated part...).
  if (
    /boundary|multipart|unexpected end of form|malformed part header|part terminated/i.test(
      error.message ?? "",
    )
  ) {
    return validationError("Malformed multipart body", [{ field: "body", message: error.message }]);
  }
  if (error instanceof SyntaxError)
    return validationError("Malformed JSON body", [{ field: "body", message: error.message }]);
  if (isDatabaseUnavailable(error))
    return new ApiError("ServiceUnavailable", "The database is busy or unreachable; retry shortly");
  if (error.statusCode === 429)
    return new ApiError("TooManyRequests", "Rate limit exceeded for this API key");
  if (error.statusCode === 413) return new ApiError("PayloadTooLarge", "Request body is too large");
  if (error.statusCode === 415) return new ApiError("UnsupportedMediaType", error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return validationError(error.message);
  return new ApiError("InternalError", "Internal error");
}

/**
 * Errors the router raises before any route runs (fastify's `frameworkErrors`): a URL that is
 * not valid percent-encoding, a path segment past the router's length bound.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return reply
      .status(414)
      .send({ error: "PayloadTooLarge", message: "A path segment is longer than 500 characters" });
  }
  const message =
    error.code === "FST_ERR_BAD_URL" ? "Malformed URL: invalid percent-encoding" : "Malformed request";
  return reply.status(400).send(validationError(message, [{ field: "url", message }]).toBody());
}

/**
 * Requests Node's HTTP parser refuses before fastify sees them (headers or URL over 16 KiB,
 * timeouts, broken HTTP): answered in the docs/design.md §4 shape, then the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, body] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [
          431,
          "Request Header Fields Too Large",
          { error: "PayloadTooLarge", message: "Request headers or URL too large (16 KiB at most)" },
        ]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", { error: "ValidationError", message: "Request not received in time" }]
        : [400, "Bad Request", { error: "ValidationError", message: "Malformed HTTP request" }];
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
