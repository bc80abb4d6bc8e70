import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { estateKeyResource, KEY_DIRECTIONS, keyHandoverStream } from "../../events/estateKeys.ts";
import { legalToday } from "../../law/calendar.ts";
import { type ErrorDetail, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { createdAnswers } from "../../platform/http/responses.ts";
import { text, uuid } from "../../platform/http/schemas.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import { estateOfPath, handoverBody, readHandover, readKeySets } from "../../queries/estateKeys.ts";
import { readLease } from "../../queries/leases.ts";
import { date } from "../../queries/leasesSchemas.ts";
import { estateKeyDecider, handoverDecider } from "./decider.ts";

/** Key sets (area kit) and handovers of an estate (docs/moving.md "Keys"): Properties. */

const keySetRoutes = resourceCommandRoutes(estateKeyResource, estateKeyDecider, { within: estateOfPath });

const handoverSchema = z
  .strictObject({
    lease_id: uuid(),
    direction: z.enum(KEY_DIRECTIONS),
    on: date().refine((d) => d <= legalToday(), "Must not be after today (Europe/Paris)"),
    sets: z
      .array(
        z.strictObject({ kind: text(100), count: z.number().int("Must be an integer").min(1).max(1000) }),
      )
      .min(1, "At least one key set"),
  })
  .meta({ id: "NewKeyHandover" });

async function handoverRoute(app: FastifyInstance) {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/estates/:estate_id/keys/handovers",
    {
      schema: {
        tags: ["Moving in and out"],
        summary: "Record keys handed over to, or returned by, a lease's tenants",
        params: z.strictObject({ estate_id: uuid() }),
        body: handoverSchema,
        response: createdAnswers(handoverBody),
      },
      config: { access: "PropertiesWrite", invalidBodyMessage: "Invalid key handover" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { estate_id } = request.params;
      await estateOfPath(request, request.params);
      const b = request.body;
      const errors: ErrorDetail[] = [];
      const lease = await readLease(sql, tenantId, b.lease_id);
      if (!lease) errors.push({ field: "lease_id", message: `Lease ${b.lease_id} does not exist` });
      else if (lease.body.estate_id !== estate_id)
        errors.push({
          field: "lease_id",
          message: `Lease ${b.lease_id} is not a lease of estate ${estate_id}`,
        });
      const sets = await readKeySets(sql, tenantId, estate_id);
      const seen = new Set<string>();
      b.sets.forEach((s, i) => {
        const count = sets.get(s.kind);
        if (seen.has(s.kind)) errors.push({ field: `sets.${i}.kind`, message: `${s.kind} is listed twice` });
        else if (count === undefined)
          errors.push({ field: `sets.${i}.kind`, message: `The estate has no key set of kind ${s.kind}` });
        else if (s.count > count)
          errors.push({
            field: `sets.${i}.count`,
            message: `The estate has ${count} key(s) of kind ${s.kind}`,
          });
        seen.add(s.kind);
      });
      if (errors.length > 0) throw validationError("Invalid key handover", errors);
      const id = newResourceId(request, "handover_id");
      const result = await handleCommand(request, keyHandoverStream(id), handoverDecider, {
        type: "RecordKeyHandover",
        handover: { handover_id: id, estate_id, ...b },
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 201,
        id,
        location: `/api/estates/${estate_id}/keys/handovers/${id}`,
        read: () => readHandover(sql, tenantId, id),
      });
    },
  );
}

export async function estateKeyCommandRoutes(app: FastifyInstance): Promise<void> {
  await handoverRoute(app);
  await keySetRoutes(app);
}
