import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { CONDITIONS } from "../../events/equipment.ts";
import { inventoryStream } from "../../events/inventories.ts";
import { legalToday } from "../../law/calendar.ts";
import { REQUIRED_ITEMS } from "../../law/furnishedInventory.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { updatedAnswers } from "../../platform/http/responses.ts";
import { ignored, isoDate, text, uuid } from "../../platform/http/schemas.ts";
import { inventoryBody, readInventoryBody } from "../../queries/inventories.ts";
import { requireLease } from "../../queries/leases.ts";
import { inventoryDecider } from "./decider.ts";

const inventoryInput = z.strictObject({
  recorded_on: isoDate
    .refine((d) => d <= legalToday(), "recorded_on must not be after today (Europe/Paris)")
    .optional()
    .describe("Default today (Europe/Paris)"),
  items: z
    .array(
      z.strictObject({
        item: z
          .enum([...REQUIRED_ITEMS, "OTHER"])
          .describe("An item of décret n° 2015-981 art. 2, or OTHER (then a description)"),
        quantity: z.number().int().min(0).max(10_000).describe("0: recorded as absent"),
        description: text(500).nullish(),
        room_name: text(255).nullish(),
        condition: z.enum(CONDITIONS).nullish(),
      }),
    )
    .max(1000),
  lease_id: ignored(uuid()),
  verdict: ignored(z.unknown()),
});

const params = z.strictObject({ lease_id: uuid() });

/** PUT /api/leases/{id}/inventory: records the furniture of the lease, replacing the inventory before. */
export async function inventoryRoutes(app: FastifyInstance) {
  const { sql } = app.platform;
  app.put(
    "/api/leases/:lease_id/inventory",
    {
      schema: {
        tags: ["Inventories"],
        summary:
          "Record the furniture inventory of a lease (replaces the one before); checked against décret n° 2015-981 art. 2",
        params,
        body: inventoryInput,
        response: updatedAnswers(inventoryBody),
      },
      config: { access: "LeasesWrite" },
    },
    async (request, reply) => {
      const { lease_id } = request.params as z.infer<typeof params>;
      const body = request.body as z.output<typeof inventoryInput>;
      const tenantId = tenantOf(request);
      await requireLease(sql, tenantId, lease_id);
      const result = await handleCommand(request, inventoryStream(lease_id), inventoryDecider, {
        type: "RecordInventory",
        lease_id,
        recorded_on: body.recorded_on ?? legalToday(),
        items: body.items.map((i) => ({
          item: i.item,
          quantity: i.quantity,
          description: i.description ?? null,
          room_name: i.room_name ?? null,
          condition: i.condition ?? null,
        })),
      });
      return replyWithResource(request, reply, 200, {
        id: lease_id,
        position: result.position,
        read: () => readInventoryBody(sql, tenantId, lease_id),
      });
    },
  );
}
