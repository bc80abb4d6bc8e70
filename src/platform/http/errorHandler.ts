import type { FastifyError, FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ApiError, validationError } from "../errors.ts";

/** Every failure leaves in the DESIGN.md §4 shape; nothing internal (stack, SQL) leaks. */
export const errorHandler = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((raw, request, reply) => {
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
  if (error.statusCode === 429)
    return new ApiError("TooManyRequests", "Rate limit exceeded for this API key");
  if (error.statusCode === 413) return new ApiError("PayloadTooLarge", "Request body is too large");
  if (error.statusCode === 415) return new ApiError("UnsupportedMediaType", error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return validationError(error.message);
  return new ApiError("InternalError", "Internal error");
}
