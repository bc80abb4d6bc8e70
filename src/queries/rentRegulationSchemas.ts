import { z } from "zod";
import { CONSTRUCTION_PERIODS, QUARTER_RE } from "../events/rentRegulation.ts";
import { decimalsMeta, isoDate, isWholeCents } from "../platform/http/schemas.ts";

/** NUL and unpaired surrogates pass JSON but not PostgreSQL text: a 400, not a 500. */
const storable = (v: string) => !v.includes("\u0000") && v.isWellFormed();

/** A quarter `YYYY-Qn` (400 otherwise). */
export const quarter = z
  .string({ error: "must be a quarter YYYY-Qn, e.g. 2025-Q2" })
  .regex(QUARTER_RE, { error: "must be a quarter YYYY-Qn, e.g. 2025-Q2" })
  .meta({ example: "2025-Q2" });

/** A real calendar date YYYY-MM-DD within the platform's bounds. */
const date = isoDate;

/** At most two decimals: IRL values and rents per m² are published to the cent. */
const hundredths = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .positive({ error: `${name} must be greater than 0` })
    .max(100_000, { error: `${name} must be at most 100000` })
    .refine(isWholeCents, {
      error: `${name} has at most 2 decimals`,
    })
    .meta(decimalsMeta(2));

export const irlParams = z.strictObject({ quarter });

export const putIrlBody = z.strictObject({
  value: hundredths("value"),
  published_on: date.nullable().optional(),
});

export const referenceRent = z.strictObject({
  rooms: z.int({ error: "must be an integer from 1 to 4 (4 = four or more)" }).min(1).max(4),
  construction_period: z.enum(CONSTRUCTION_PERIODS, {
    error: `must be one of ${CONSTRUCTION_PERIODS.join(", ")}`,
  }),
  furnished: z.boolean({ error: "must be true or false" }),
  reference: hundredths("reference"),
  increased_reference: hundredths("increased_reference"),
});

/** PUT body of a place's rent regulation, or of an estate's override. */
export const putRentRegulationBody = z
  .strictObject({
    high_demand_zone: z.boolean({ error: "must be true or false" }),
    reference_rents: z.array(referenceRent).max(200).default([]),
    order_reference: z
      .string()
      .trim()
      .max(255)
      .refine(storable, { error: "must not contain NUL or unpaired surrogates" })
      .nullable()
      .default(null),
    effective_from: date.nullable().default(null),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.reference_rents.forEach((r, i) => {
      const key = `${r.rooms}/${r.construction_period}/${r.furnished}`;
      if (seen.has(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["reference_rents", i],
          message: "a reference rent for these rooms, construction period and furnishing is already given",
        });
      }
      seen.add(key);
      if (r.increased_reference < r.reference) {
        ctx.addIssue({
          code: "custom",
          path: ["reference_rents", i, "increased_reference"],
          message: "must not be below reference",
        });
      }
    });
  });
export type PutRentRegulationBody = z.output<typeof putRentRegulationBody>;
