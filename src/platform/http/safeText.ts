import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { validationError } from "../errors.ts";

/**
 * How deep a JSON body may nest (objects and arrays, the body itself being level 1). Free-form
 * JSON (`custom_fields`) lives within this bound, so no code that walks a body recurses
 * without a bound (docs/security.md).
 */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text nests objects or arrays deeper than `max`; one pass, no recursion. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * JSON bodies: nesting bounded before parsing, `__proto__`/`constructor.prototype` keys refused
 * (fastify's secure parser), and text PostgreSQL cannot store refused at every depth.
 */
export const safeText = fp(async (app: FastifyInstance) => {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        validationError("Invalid data", [
          { field: "body", message: `JSON nests deeper than ${MAX_JSON_DEPTH} levels` },
        ]),
      );
    }
    parse(request, text, done);
  });

  app.addHook("preValidation", (request, _reply, done) => {
    const bad =
      findUnstorable(request.body, "") ??
      findUnstorable(request.query, "") ??
      findUnstorable(request.params, "");
    if (bad === null) return done();
    done(
      validationError("Invalid data", [
        { field: bad || "body", message: "Contains a NUL character or an invalid Unicode sequence" },
      ]),
    );
  });
});

/** PostgreSQL refuses NUL and lone UTF-16 surrogates in text and jsonb (22P05, 22021). */
const storable = (s: string) => s.isWellFormed() && !s.includes("\u0000");

/**
 * The dotted path of the first string (or key) that cannot be stored, or null. Every depth is
 * checked; a value nested beyond the parser's bound (only possible from code, not from a body)
 * is reported rather than skipped.
 */
export function findUnstorable(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return storable(value) ? null : path;
  if (value === null || typeof value !== "object") return null;
  if (depth > MAX_JSON_DEPTH) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findUnstorable(value[i], `${path}[${i}]`, depth + 1);
      if (bad !== null) return bad;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const here = path ? `${path}.${key}` : key;
    if (!storable(key)) return here;
    const bad = findUnstorable(v, here, depth + 1);
    if (bad !== null) return bad;
  }
  return null;
}
