import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { LEASE_REGIMES, LEASE_TYPES, type LeaseType } from "../law/leaseTypes.ts";
import { notFound } from "../platform/errors.ts";
import { answers } from "../platform/http/responses.ts";

/**
 * The Lease Types area (docs/specification.md; docs/design.md §7.0b): each lease type with the regime the law gives
 * it, from src/law/leaseTypes.ts, so clients stop hard-coding French law. Read-only and the same
 * for every tenant: no read model, the law is code. "UNKNOWN" where no text could be confirmed.
 */

const unknown = z.literal("UNKNOWN");
const months = z.union([z.number(), unknown]).nullable();
const notice = z.object({ months, when: z.string(), legal_reference: z.string() });

export const leaseTypeBody = z.object({
  code: z.enum(LEASE_TYPES),
  label: z.string(),
  law: z.string(),
  under_loi_89_462: z.boolean(),
  duration: z.object({
    minimum_months: months,
    maximum_months: z.number().nullable(),
    default_months: months,
    renewal: z.enum(["TACIT", "NONE", "UNKNOWN"]),
    renewal_months: months,
    notes: z.string().nullable(),
    legal_reference: z.string(),
  }),
  deposit: z.object({ cap_months: months, notes: z.string().nullable(), legal_reference: z.string() }),
  notice: z.object({ lessee: notice, lessor: notice }),
  index_revision: z.object({
    index: z.enum(["IRL", "NONE", "UNKNOWN"]),
    at_most_once_a_year: z.union([z.boolean(), unknown]).nullable(),
    legal_reference: z.string(),
  }),
  mandatory_mentions: z.array(z.string()),
  mandatory_annexes: z.array(z.string()),
});

const params = z.strictObject({
  code: z
    .string()
    .max(40)
    .describe(`A lease type: ${LEASE_TYPES.join(", ")}`),
});
const tags = ["Lease Types"];

export async function leaseTypeQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    "/api/lease-types",
    {
      schema: {
        tags,
        summary: "List the lease types with the regime French law gives each",
        response: answers(z.array(leaseTypeBody)),
      },
      config: { access: "LeasesRead" },
    },
    async () => LEASE_TYPES.map((code) => LEASE_REGIMES[code]),
  );

  api.get(
    "/api/lease-types/:code",
    {
      schema: {
        tags,
        summary: "Read one lease type's regime (law, duration, deposit, notice, index, annexes)",
        params,
        response: answers(leaseTypeBody),
      },
      config: { access: "LeasesRead" },
    },
    async (request) => {
      const code = request.params.code.toUpperCase();
      if (!(LEASE_TYPES as readonly string[]).includes(code))
        throw notFound("Lease type", request.params.code);
      return LEASE_REGIMES[code as LeaseType];
    },
  );
}
