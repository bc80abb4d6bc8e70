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
  return fastJson(nullableAsTypeList(jsonSchema) as Parameters<typeof fastJson>[0]);
}

const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);
const CONTAINERS = new Set(["object", "array"]);

/**
 * zod writes `.nullable()` as `anyOf: [T, {type: "null"}]`, which fast-json-stringify resolves
 * per value with a validator; `type: [T, "null"]` (objects and arrays: `nullable: true`) says
 * the same and is written directly (an enum's values then include null).
 * Our own schemas only (finite, acyclic), so the walk is bounded by their size.
 */
function nullableAsTypeList(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAsTypeList);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = nullableAsTypeList(value);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const [a, b] = anyOf as Record<string, unknown>[];
    const [value, nul] = b?.type === "null" ? [a, b] : [b, a];
    const nullable = nul?.type === "null" && Object.keys(nul).length === 1;
    const type = value?.type as string;
    if (nullable && (PRIMITIVES.has(type) || CONTAINERS.has(type))) {
      const { anyOf: _, ...rest } = out;
      // Objects and arrays: fast-json-stringify's `nullable` writes them without a validator too.
      // An enum's values list null too, else the validator refuses a null (a nullable enum
      // inside a nullable object, e.g. an owner's legal_form in its export).
      const nullableEnum = Array.isArray(value.enum) ? { enum: [...value.enum, null] } : {};
      return PRIMITIVES.has(type)
        ? { ...rest, ...value, ...nullableEnum, type: [type, "null"] }
        : { ...rest, ...value, nullable: true };
    }
  }
  return out;
}
