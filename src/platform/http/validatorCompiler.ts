import type { FastifySchemaCompiler } from "fastify";
import type { z } from "zod";
import { ApiError } from "../errors.ts";
import { issuesToDetails, stripReadOnly } from "../validation.ts";

const messages: Record<string, string> = {
  body: "Invalid data",
  querystring: "Invalid query parameters",
  params: "Invalid path parameters",
  headers: "Invalid headers",
};

/**
 * Route schemas are zod; a failure becomes our 400 with dotted-path details. Read-only
 * fields (`id`, `created_at`, `updated_at`) are dropped from bodies first so a client can
 * PUT back what it got.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const input =
      httpPart === "body"
        ? Array.isArray(data)
          ? data.map((item) => stripReadOnly(item))
          : stripReadOnly(data)
        : data;
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data };
    const error = new ApiError(
      "ValidationError",
      messages[httpPart ?? "body"] ?? "Invalid data",
      issuesToDetails(result.error.issues),
    );
    return { error: Object.assign(error, { schemaPart: httpPart }) };
  };
