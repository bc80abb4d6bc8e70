import { z } from "zod";
import type { TypeKind } from "../../events/types.ts";
import { text } from "../../platform/http/schemas.ts";

/** Path segment -> kind: /api/types/estates|rooms|equipment. */
export const kindOfSegment: Record<string, TypeKind> = {
  estates: "estate",
  rooms: "room",
  equipment: "equipment",
};

export const createTypeSchema = z.strictObject({
  name: text(255),
  /** Optional stable code; derived from the name when absent. */
  code: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_]{0,63}$/, "Lower-case letters, digits and underscores, at most 64")
    .optional(),
});

export type CreateTypeInput = z.output<typeof createTypeSchema>;

/** "Wine cellar" -> "wine_cellar"; accents folded, other characters become underscores. */
export function codeFromName(name: string): string {
  const code = name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64)
    .replace(/_+$/g, "");
  return code || "type";
}
