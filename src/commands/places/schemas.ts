import { z } from "zod";

/** NUL and unpaired surrogates: JSON allows them, PostgreSQL text and jsonb do not. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const isStorable = (value: string) => !value.includes("\u0000") && !UNPAIRED_SURROGATE.test(value);
const UNSTORABLE_MESSAGE = "Must not contain NUL or unpaired surrogate characters";

/** A trimmed text field of bounded length; empty after trimming is refused. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, "Must not be empty")
    .max(max, `Must be at most ${max} characters`)
    .refine(isStorable, UNSTORABLE_MESSAGE);

/** Free-form JSON whose every key and string value can be stored. */
export const storableJson = <S extends z.ZodType>(schema: S) =>
  schema.superRefine((value, ctx) => {
    const walk = (v: unknown): boolean => {
      if (typeof v === "string") return isStorable(v);
      if (Array.isArray(v)) return v.every(walk);
      if (v && typeof v === "object") return Object.entries(v).every(([k, x]) => isStorable(k) && walk(x));
      return true;
    };
    if (!walk(value)) ctx.addIssue({ code: "custom", message: UNSTORABLE_MESSAGE });
  });

/** A UUID (any version), lower-cased: ids name streams, so `ABC…` and `abc…` must be one id. */
export const uuid = () => z.guid("Must be a UUID").overwrite((value) => value.toLowerCase());

/** A required field on update: may be omitted, never null (null would remove it). */
export const notNull = <S extends z.ZodType>(schema: S, field: string) =>
  z.preprocess((value, ctx) => {
    if (value !== null) return value;
    ctx.addIssue({ code: "custom", message: `${field} is required and cannot be removed`, input: value });
    return z.NEVER;
  }, schema);

const address = {
  address_street: text(255).nullish(),
  address_postal_code: text(20).nullish(),
  address_city: text(255).nullish(),
  address_country: text(100).nullish(),
};

export const createPlaceSchema = z.strictObject({
  name: text(255),
  description: text(2000).nullish(),
  ...address,
});

export const updatePlaceSchema = z.strictObject({
  name: notNull(text(255), "name").optional(),
  description: text(2000).nullish(),
  ...address,
});

export type CreatePlaceInput = z.output<typeof createPlaceSchema>;
export type UpdatePlaceInput = z.output<typeof updatePlaceSchema>;
