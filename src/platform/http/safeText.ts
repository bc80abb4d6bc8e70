import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { validationError } from "../errors.ts";

/**
 * PostgreSQL cannot store NUL characters or lone UTF-16 surrogates in text or jsonb. Refuse
 * them at the door (400 on the field) rather than failing deep in a write with a 500.
 */
export const safeText = fp(async (app: FastifyInstance) => {
  app.addHook("preValidation", async (request) => {
    const bad =
      findUnstorable(request.body, "") ??
      findUnstorable(request.query, "") ??
      findUnstorable(request.params, "");
    if (bad !== null) {
      throw validationError("Invalid data", [
        { field: bad || "body", message: "Contains a NUL character or an invalid Unicode sequence" },
      ]);
    }
  });
});

const storable = (s: string) => s.isWellFormed() && !s.includes("\u0000");

/** The dotted path of the first string (or key) that cannot be stored, or null. */
export function findUnstorable(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return storable(value) ? null : path;
  if (value === null || typeof value !== "object" || depth > 64) return null;
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
