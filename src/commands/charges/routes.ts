import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  type ChargeFields,
  euros,
  KEY_KINDS,
  leaseChargesStream,
  placeChargesStream,
  serviceResource,
} from "../../events/charges.ts";
import { contactResource } from "../../events/contacts.ts";
import { legalToday } from "../../law/calendar.ts";
import { CHARGE_CATEGORIES, CHARGE_TAXES } from "../../law/charges.ts";
import { notFound, validationError } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, newResourceId, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { replyWithResource } from "../../platform/http/replyWithResource.ts";
import { createdAnswers, deletedAnswers, updatedAnswers } from "../../platform/http/responses.ts";
import { ignored, isoDate, text, uuid } from "../../platform/http/schemas.ts";
import { oneAtATime } from "../../platform/oneAtATime.ts";
import { resourceRecorded } from "../../platform/resource/read.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";
import {
  chargeBody,
  chargeFreezeBody,
  distributionKeyBody,
  listDistributionKeys,
  placeEstates,
  placeOfCharge,
  readCharge,
  readChargeLease,
  readDistributionKey,
  readFreeze,
  readRegularisation,
  regularisationBody,
  regularisationFacts,
} from "../../queries/charges.ts";
import { mediaRecorded } from "../../queries/media.ts";
import { requirePlace } from "../../queries/places.ts";
import { type LedgerCommand, ledgerDecider, regularisationDecider, serviceDecider } from "./decider.ts";

/** Commands of the charges area (docs/design.md §7.4, docs/charges.md): FinanceWrite/Delete; services PropertiesWrite. */

const tags = ["Charges"];
const period = z.strictObject({ from: isoDate, to: isoDate });
const readOnlyFields = {
  id: ignored(uuid()),
  place_id: ignored(uuid()),
  recoverable: ignored(z.boolean()),
  created_at: ignored(z.string()),
  updated_at: ignored(z.string()),
};

const chargeTax = z
  .enum(CHARGE_TAXES)
  .nullish()
  .describe(
    "TAXES_AND_FEES only, required there: TEOM, REOM and TAXE_BALAYAGE are recovered, OTHER (the taxe foncière...) never (décret 87-713 VIII)",
  );

const newCharge = z
  .strictObject({
    category: z.enum(CHARGE_CATEGORIES),
    tax: chargeTax,
    amount: euros(-1).describe("Euros; negative only for an adjusting entry (corrects_charge_id)"),
    period,
    label: text(255).min(1, "Must not be empty"),
    invoice_media_id: uuid().nullish(),
    distribution_key_id: uuid()
      .nullish()
      .describe("The key splitting it; none: equal parts over the place's estates"),
    corrects_charge_id: uuid().nullish().describe("An adjusting entry: the charge it corrects"),
    ...readOnlyFields,
  })
  .meta({ id: "NewCharge" });

const chargeChanges = z
  .strictObject({
    category: z.enum(CHARGE_CATEGORIES).optional(),
    tax: chargeTax,
    amount: euros(-1).optional(),
    period: period.optional(),
    label: text(255).min(1, "Must not be empty").optional(),
    invoice_media_id: uuid().nullish(),
    distribution_key_id: uuid().nullish(),
    corrects_charge_id: uuid().nullish(),
    ...readOnlyFields,
  })
  .meta({ id: "ChargeChanges" });

const newKey = z
  .strictObject({
    name: text(255).min(1, "Must not be empty"),
    kind: z.enum(KEY_KINDS),
    shares: z
      .array(
        z.strictObject({
          estate_id: uuid(),
          share: z
            .number()
            .finite()
            .max(1e9)
            .nullish()
            .describe("TANTIEMES and CONSUMPTION: required; SURFACE: default the estate's area; EQUAL: 1"),
        }),
      )
      .min(1, "At least one estate")
      .max(10_000),
  })
  .meta({ id: "NewDistributionKey" });

const newFreeze = z.strictObject({ from: isoDate, to: isoDate }).meta({ id: "NewChargeFreeze" });
const newRegularisation = z
  .strictObject({ from: isoDate, to: isoDate })
  .meta({ id: "NewChargeRegularisation" });

const placeParams = z.strictObject({ place_id: uuid() });
const chargeParams = z.strictObject({ charge_id: uuid() });

type ChargeInput = z.output<typeof chargeChanges>;

/** A body's fields as the ledger holds them (omitted: undefined, kept). */
const toFields = (b: ChargeInput): Partial<ChargeFields> => ({
  category: b.category,
  tax: b.tax,
  amount: b.amount,
  period_from: b.period?.from,
  period_to: b.period?.to,
  label: b.label,
  invoice_media_id: b.invoice_media_id,
  distribution_key_id: b.distribution_key_id,
  corrects_charge_id: b.corrects_charge_id,
});

/** 400 on an invoice that is not a media of the tenant. */
async function requireInvoice(request: FastifyRequest, mediaId: string | null | undefined) {
  if (mediaId && !(await mediaRecorded(request, mediaId)))
    throw validationError("Invalid charge data", [
      { field: "invoice_media_id", message: `Media ${mediaId} not found` },
    ]);
}

/** A place's ledger is one hot stream: this process's writes to it go one at a time (no retry storms). */
const runLedger = (request: FastifyRequest, placeId: string, command: LedgerCommand) =>
  oneAtATime(placeChargesStream(placeId), () =>
    handleCommand(request, placeChargesStream(placeId), ledgerDecider, command),
  );

export const serviceCommandRoutes = resourceCommandRoutes(serviceResource, serviceDecider, {
  within: (request, params) => requirePlace(request.server.platform.sql, tenantOf(request), params.place_id),
  facts: {
    create: async (request, c) => serviceFacts(request, c.params.place_id, c.input.provider_contact_id),
    update: async (request, c) => serviceFacts(request, c.params.place_id, c.input.provider_contact_id),
  },
});

async function serviceFacts(request: FastifyRequest, placeId: string, contactId: string | null | undefined) {
  const keys = await listDistributionKeys(request.server.platform.sql, tenantOf(request), placeId);
  return {
    provider_known: contactId ? await resourceRecorded(request, contactResource, contactId) : true,
    key_ids: keys.map((k) => k.id),
  };
}

export async function chargeCommandRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/places/:place_id/charges",
    {
      schema: {
        tags,
        summary:
          "Record an expense of the place (409 inside a frozen period; a correction is an adjusting entry)",
        params: placeParams,
        body: newCharge,
        response: createdAnswers(chargeBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid charge data" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      await requireInvoice(request, request.body.invoice_media_id);
      const charge_id = newResourceId(request);
      const f = toFields(request.body);
      const fields: ChargeFields = {
        category: request.body.category,
        tax: f.tax ?? null,
        amount: request.body.amount,
        period_from: request.body.period.from,
        period_to: request.body.period.to,
        label: request.body.label,
        invoice_media_id: f.invoice_media_id ?? null,
        distribution_key_id: f.distribution_key_id ?? null,
        corrects_charge_id: f.corrects_charge_id ?? null,
      };
      const result = await runLedger(request, place_id, {
        type: "RecordCharge",
        place_id,
        charge_id,
        fields,
      });
      return replyWithResource(request, reply, 201, {
        id: charge_id,
        position: result.position,
        location: `/api/charges/${charge_id}`,
        read: () => readCharge(sql, tenantId, charge_id),
      });
    },
  );

  api.put(
    "/api/charges/:charge_id",
    {
      schema: {
        tags,
        summary:
          "Change a charge: omitted fields keep their value, null removes (409 inside a frozen period)",
        params: chargeParams,
        body: chargeChanges,
        response: updatedAnswers(chargeBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid charge data" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { charge_id } = request.params;
      const place_id = await placeOfCharge(sql, tenantId, charge_id);
      await requireInvoice(request, request.body.invoice_media_id);
      const changes = toFields(request.body);
      const result = await runLedger(request, place_id, {
        type: "ChangeCharge",
        place_id,
        charge_id,
        changes,
      });
      return replyWithResource(request, reply, 200, {
        id: charge_id,
        position: result.position,
        read: () => readCharge(sql, tenantId, charge_id),
      });
    },
  );

  api.delete(
    "/api/charges/:charge_id",
    {
      schema: {
        tags,
        summary: "Remove a charge (409 inside a frozen period)",
        params: chargeParams,
        response: deletedAnswers,
      },
      config: { access: "FinanceDelete" },
    },
    async (request, reply) => {
      const { charge_id } = request.params;
      const place_id = await placeOfCharge(sql, tenantOf(request), charge_id);
      const result = await runLedger(request, place_id, { type: "RemoveCharge", place_id, charge_id });
      return replyWithResource(request, reply, 204, { id: charge_id, position: result.position });
    },
  );

  api.post(
    "/api/places/:place_id/distribution-keys",
    {
      schema: {
        tags,
        summary: "Define a distribution key of the place (tantièmes, surface, consumption or equal parts)",
        params: placeParams,
        body: newKey,
        response: createdAnswers(distributionKeyBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid distribution key" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      const estates = await placeEstates(sql, tenantId, place_id);
      const key_id = newResourceId(request);
      const b = request.body;
      const result = await runLedger(request, place_id, {
        type: "DefineDistributionKey",
        place_id,
        key_id,
        name: b.name,
        kind: b.kind,
        shares: b.shares.map((s) => ({ estate_id: s.estate_id, share: s.share ?? null })),
        estates,
      });
      return replyAfterProjection(request, reply, {
        status: 201,
        id: key_id,
        position: result.position,
        location: `/api/places/${place_id}/distribution-keys`,
        read: () => readDistributionKey(sql, tenantId, key_id),
      });
    },
  );

  api.post(
    "/api/places/:place_id/charge-freezes",
    {
      schema: {
        tags,
        summary:
          "Freeze a period of the place's charges: no charge of it is recorded, changed or removed after",
        params: placeParams,
        body: newFreeze,
        response: createdAnswers(chargeFreezeBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid freeze" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      const freeze_id = newResourceId(request);
      const result = await runLedger(request, place_id, {
        type: "FreezeCharges",
        place_id,
        freeze_id,
        ...request.body,
      });
      return replyAfterProjection(request, reply, {
        status: 201,
        id: freeze_id,
        position: result.position,
        location: `/api/places/${place_id}/charge-freezes`,
        read: () => readFreeze(sql, tenantId, freeze_id),
      });
    },
  );

  api.post(
    "/api/leases/:lease_id/charge-regularisations",
    {
      schema: {
        tags,
        summary:
          "Regularise the lease's charges over a period (loi n° 89-462 art. 23): its share of the recoverable expenses minus the provisions called",
        params: z.strictObject({ lease_id: uuid() }),
        body: newRegularisation,
        response: createdAnswers(regularisationBody),
      },
      config: { access: "FinanceWrite", invalidBodyMessage: "Invalid regularisation" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      const lease = await readChargeLease(sql, tenantId, lease_id);
      if (!lease) throw notFound("Lease", lease_id);
      const window = request.body;
      const facts = await regularisationFacts(sql, tenantId, lease, window);
      const regularisation_id = newResourceId(request);
      const result = await handleCommand(request, leaseChargesStream(lease_id), regularisationDecider, {
        type: "RegulariseCharges",
        regularisation_id,
        place_id: lease.place_id,
        lease_status: lease.status,
        facts: {
          lease_id,
          estate_id: lease.estate_id,
          lease_type: lease.lease_type,
          settlement: lease.settlement,
          period: window,
          regularised_on: legalToday(),
          ...facts,
        },
      });
      return replyAfterProjection(request, reply, {
        status: 201,
        id: regularisation_id,
        position: result.position,
        location: `/api/leases/${lease_id}/charge-regularisations/${regularisation_id}`,
        read: () => readRegularisation(sql, tenantId, lease_id, regularisation_id),
      });
    },
  );
}
