import fastJson from "fast-json-stringify";
import { z } from "zod";

/**
 * Answers are serialised through the schemas their routes declare, compiled once per route and
 * status by fast-json-stringify from the JSON Schema zod gives for those same definitions (the
 * one /api/openapi.json shows). Only declared fields leave the service; that every answer matches
 * its schema is checked by the tests against the document (test/support/checkResponse.ts), not
 * re-validated with zod on every request (docs/decisions.md, "Responses in the contract").
 */
export function serializerCompiler({ schema }: { schema: unknown }): (data: unknown) => string {
  if (!(schema instanceof z.ZodType)) return (data) => JSON.stringify(data);
  const jsonSchema = z.toJSONSchema(schema, { io: "output", target: "draft-7", unrepresentable: "any" });
  return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
}
