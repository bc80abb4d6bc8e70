import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  KEY_KINDS,
  type RegularisationRecord,
  SERVICE_CATEGORY,
  type ServiceKind,
  serviceResource,
} from "../events/charges.ts";
import { addMonths, legalToday } from "../law/calendar.ts";
import {
  type AlertLease,
  ART_7_1,
  CHARGE_CATEGORIES,
  CHARGE_TAXES,
  type ChargeCategory,
  type ChargeTax,
  chargeAlerts,
  DECRET_87_713,
  DECRET_87_713_VIII,
  type DistributionKey,
  type Expense,
  type Occupancy,
  type ProvisionCall,
  recoverableExpense,
  type ServiceFrequency,
  serviceExpenses,
  settlementVerdict,
} from "../law/charges.ts";
import type { LeaseType } from "../law/leaseTypes.ts";
import { chargeSettlementOf } from "../law/leaseTypes.ts";
import { cents } from "../law/money.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers, verdictBody } from "../platform/http/responses.ts";
import { isoDate, uuid } from "../platform/http/schemas.ts";
import { formatEuro, longDate } from "../platform/pdf/renderTemplate.ts";
import type { Row } from "../platform/projections/projection.ts";
import { resourceQueryRoutes } from "../platform/resource/routes.ts";
import { contentDisposition } from "./media.ts";
import { requirePlace } from "./places.ts";
import { pdfAnswers } from "./rentCollection.ts";
import { type LetterFacts, readLetterFacts, renderDocument } from "./rentDocuments.ts";

/**
 * GET routes of the charges area (docs/design.md §7.4, docs/charges.md) and the facts its commands look
 * up: charges, distribution keys, freezes, regularisations (FinanceRead), services (PropertiesRead),
 * alerts.
 */

const tags = ["Charges"];
const read = { access: "FinanceRead" } as const;
const num = (v: unknown) => Number(v);

const period = z.strictObject({ from: isoDate, to: isoDate });

export const chargeBody = z
  .strictObject({
    id: uuid(),
    place_id: uuid(),
    category: z.enum(CHARGE_CATEGORIES),
    tax: z
      .enum(CHARGE_TAXES)
      .nullable()
      .describe(
        "TAXES_AND_FEES: which tax; only TEOM, REOM and TAXE_BALAYAGE are recovered (décret 87-713 VIII)",
      ),
    recoverable: z
      .boolean()
      .describe(
        "Whether the category is one of the décret 87-713 headings, and for heading VIII a tax it names",
      ),
    amount: z.number().describe("Euros; an adjusting entry may be negative"),
    period,
    label: z.string(),
    invoice_media_id: uuid().nullable(),
    distribution_key_id: uuid().nullable(),
    corrects_charge_id: uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Charge" });

export const distributionKeyBody = z
  .strictObject({
    id: uuid(),
    place_id: uuid(),
    name: z.string(),
    kind: z.enum(KEY_KINDS),
    shares: z.array(z.strictObject({ estate_id: uuid(), share: z.number() })),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "DistributionKey" });

export const chargeFreezeBody = z
  .strictObject({ id: uuid(), place_id: uuid(), from: isoDate, to: isoDate, created_at: z.iso.datetime() })
  .meta({ id: "ChargeFreeze" });

export const regularisationBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    place_id: uuid(),
    estate_id: uuid(),
    period,
    regularised_on: isoDate,
    days_of_period: z.number().int(),
    days_occupied: z.number().int(),
    recoverable_total: z.number().describe("Recoverable expenses of the place over the period, euros"),
    lines: z.array(
      z.strictObject({
        category: z.enum(CHARGE_CATEGORIES),
        heading: z.string(),
        key_id: uuid().nullable(),
        key_name: z.string(),
        key_kind: z.enum(KEY_KINDS),
        share: z.number(),
        total_shares: z.number(),
        place_amount: z.number(),
        lease_amount: z.number(),
      }),
    ),
    excluded: z.array(
      z.strictObject({
        expense_id: uuid(),
        source: z.enum(["CHARGE", "SERVICE"]),
        label: z.string(),
        category: z.enum(CHARGE_CATEGORIES),
        amount: z.number(),
        reason: z.string(),
        legal_reference: z.string(),
      }),
    ),
    lease_amount: z.number().describe("The lease's part of the recoverable expenses, euros"),
    provisions_called: z.number().describe("The charges part of the rent calls over the period, euros"),
    balance: z.number().describe("lease_amount − provisions_called: positive, the lessee owes it"),
    instalments: z.strictObject({
      allowed: z.boolean(),
      deadline: isoDate,
      schedule: z.array(z.strictObject({ month: z.string(), amount: z.number() })),
    }),
    verdicts: z.array(verdictBody),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ChargeRegularisation" });

export const chargeConfigurationBody = z
  .strictObject({
    lease_id: uuid(),
    place_id: uuid(),
    estate_id: uuid(),
    charge_settlement_mode: z.string().nullable().describe("As the lease states it"),
    settlement: z.enum(["PROVISION", "FLAT"]).describe("What the law makes of it for the lease's type"),
    charges_amount: z.number().nullable().describe("Provision or flat rate per rent period, euros"),
    regularised: z.boolean().describe("Whether the charges are regularised once a year (art. 23)"),
    legal_reference: z.string(),
  })
  .meta({ id: "LeaseChargeConfiguration" });

export const chargeAlertBody = z
  .strictObject({
    kind: z.enum(["ANNUAL_REVIEW_DUE", "REGULARISATION_OVERDUE"]),
    lease_id: uuid(),
    period,
    due_by: isoDate,
    message: z.string(),
    legal_reference: z.string(),
  })
  .meta({ id: "ChargeAlert" });

// ---------------------------------------------------------------- reads

const CHARGE_SELECT = `id, place_id, category, tax, amount, period_from, period_to, label, invoice_media_id,
  distribution_key_id, corrects_charge_id, revision, created_at, updated_at`;

const toCharge = (r: Row) => ({
  id: String(r.id),
  place_id: String(r.place_id),
  category: r.category as ChargeCategory,
  tax: (r.tax as ChargeTax | null) ?? null,
  recoverable: recoverableExpense({ category: r.category as ChargeCategory, tax: r.tax as ChargeTax | null }),
  amount: num(r.amount),
  period: { from: isoDay(r.period_from) as string, to: isoDay(r.period_to) as string },
  label: String(r.label),
  invoice_media_id: (r.invoice_media_id as string | null) ?? null,
  distribution_key_id: (r.distribution_key_id as string | null) ?? null,
  corrects_charge_id: (r.corrects_charge_id as string | null) ?? null,
  created_at: iso(r.created_at) as string,
  updated_at: iso(r.updated_at) as string,
});

/** One charge of the tenant: its body, the ledger's revision (its ETag) and its place. */
export async function readCharge(
  sql: Sql,
  tenantId: string,
  id: string,
): Promise<(Found & { place_id: string }) | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT ${CHARGE_SELECT} FROM charges WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? { body: toCharge(row), revision: num(row.revision), place_id: String(row.place_id) } : null;
}

/** The place a charge belongs to (404 for an unknown charge), for the commands on /api/charges/{id}. */
export async function placeOfCharge(sql: Sql, tenantId: string, id: string): Promise<string> {
  const found = await readCharge(sql, tenantId, id);
  if (!found) throw notFound("Charge", id);
  return found.place_id;
}

export async function listCharges(sql: Sql, tenantId: string, placeId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT ${CHARGE_SELECT} FROM charges WHERE tenant_id = $1 AND place_id = $2 ORDER BY period_from, created_at, id`,
      [tenantId, placeId],
    ),
  );
  return rows.map(toCharge);
}

const toKey = (r: Row) => ({
  id: String(r.id),
  place_id: String(r.place_id),
  name: String(r.name),
  kind: r.kind as (typeof KEY_KINDS)[number],
  shares: r.shares as { estate_id: string; share: number }[],
  created_at: iso(r.created_at) as string,
});

export async function readDistributionKey(sql: Sql, tenantId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM distribution_keys WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? toKey(row) : null;
}

export async function listDistributionKeys(sql: Sql, tenantId: string, placeId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT * FROM distribution_keys WHERE tenant_id = $1 AND place_id = $2 ORDER BY created_at, id`,
      [tenantId, placeId],
    ),
  );
  return rows.map(toKey);
}

const toFreeze = (r: Row) => ({
  id: String(r.id),
  place_id: String(r.place_id),
  from: isoDay(r.period_from) as string,
  to: isoDay(r.period_to) as string,
  created_at: iso(r.created_at) as string,
});

export async function readFreeze(sql: Sql, tenantId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(`SELECT * FROM charge_freezes WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
  );
  return row ? toFreeze(row) : null;
}

export async function listFreezes(sql: Sql, tenantId: string, placeId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT * FROM charge_freezes WHERE tenant_id = $1 AND place_id = $2 ORDER BY period_from, id`,
      [tenantId, placeId],
    ),
  );
  return rows.map(toFreeze);
}

/** The estates of a place with their floor area (m²): a key's estates must be the place's. */
export async function placeEstates(sql: Sql, tenantId: string, placeId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ id: string; area: string }>(
      `SELECT id, area FROM estates WHERE tenant_id = $1 AND place_id = $2 ORDER BY id`,
      [tenantId, placeId],
    ),
  );
  return rows.map((r) => ({ id: String(r.id), area: num(r.area) }));
}

export const toRegularisation = (record: RegularisationRecord, createdAt: unknown) => {
  const { regularisation_id, period_from, period_to, ...rest } = record;
  return {
    id: regularisation_id,
    ...rest,
    period: { from: period_from, to: period_to },
    created_at: iso(createdAt) as string,
  };
};

export async function readRegularisation(sql: Sql, tenantId: string, leaseId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT record, created_at FROM charge_regularisations WHERE tenant_id = $1 AND lease_id = $2 AND id = $3`,
      [tenantId, leaseId, id],
    ),
  );
  return row ? toRegularisation(row.record as RegularisationRecord, row.created_at) : null;
}

export async function listRegularisations(sql: Sql, tenantId: string, leaseId: string) {
  const rows = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT record, created_at FROM charge_regularisations WHERE tenant_id = $1 AND lease_id = $2
       ORDER BY period_from, created_at, id`,
      [tenantId, leaseId],
    ),
  );
  return rows.map((r) => toRegularisation(r.record as RegularisationRecord, r.created_at));
}

// ---------------------------------------------------------------- facts of a regularisation

export interface ChargeLease {
  lease_id: string;
  estate_id: string;
  place_id: string;
  lease_type: LeaseType;
  status: string;
  settlement: "PROVISION" | "FLAT";
  /** The provision or the flat rate per rent period, euros (null: none set). */
  charges_amount: number | null;
  charge_settlement_mode: string | null;
}

/** The lease as the regularisation needs it, or null when the tenant has no such lease. */
export async function readChargeLease(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<ChargeLease | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT l.id, l.estate_id, e.place_id, l.lease_type, l.status, l.charge_settlement_mode, l.charges_amount
       FROM leases l JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
       WHERE l.tenant_id = $1 AND l.id = $2`,
      [tenantId, leaseId],
    ),
  );
  if (!row) return null;
  const lease_type = row.lease_type as LeaseType;
  return {
    lease_id: String(row.id),
    estate_id: String(row.estate_id),
    place_id: String(row.place_id),
    lease_type,
    status: String(row.status),
    settlement: chargeSettlementOf(lease_type, (row.charge_settlement_mode as string | null) ?? null),
    charges_amount: row.charges_amount === null ? null : num(row.charges_amount),
    charge_settlement_mode: (row.charge_settlement_mode as string | null) ?? null,
  };
}

/** Leases that occupied an estate of the place: signed, from their start to their end if ended. */
async function placeOccupancies(tx: Sql, tenantId: string, placeId: string) {
  const rows = await tx.query<Row>(
    `SELECT l.id, l.estate_id, l.start_date, l.status, l.end_date, l.terminated_at, l.lease_type, l.charge_settlement_mode
     FROM leases l JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
     WHERE l.tenant_id = $1 AND e.place_id = $2 AND l.status NOT IN ('DRAFT', 'PENDING_SIGNATURE')`,
    [tenantId, placeId],
  );
  return rows.map((r) => {
    const status = String(r.status);
    const end =
      status === "TERMINATED" ? isoDay(r.terminated_at) : status === "EXPIRED" ? isoDay(r.end_date) : null;
    return {
      lease_id: String(r.id),
      estate_id: String(r.estate_id),
      from: isoDay(r.start_date) as string,
      to: end ?? null,
      settlement: chargeSettlementOf(
        r.lease_type as LeaseType,
        (r.charge_settlement_mode as string | null) ?? null,
      ),
    };
  });
}

const toExpense = (r: Row): Expense => ({
  id: String(r.id),
  source: "CHARGE",
  label: String(r.label),
  category: r.category as ChargeCategory,
  tax: (r.tax as ChargeTax | null) ?? null,
  amount: cents(num(r.amount)),
  from: isoDay(r.period_from) as string,
  to: isoDay(r.period_to) as string,
  key_id: (r.distribution_key_id as string | null) ?? null,
});

/** A service contract's read-model row as the law reads it. */
const toService = (r: Row) => ({
  id: String(r.id),
  label: String(r.label ?? r.kind),
  category: (r.category as ChargeCategory | null) ?? SERVICE_CATEGORY[r.kind as ServiceKind],
  amount: cents(num(r.amount)),
  frequency: r.frequency as ServiceFrequency,
  recoverable_share_percent: r.recoverable_share_percent === null ? null : num(r.recoverable_share_percent),
  recoverable_amount: r.recoverable_amount === null ? null : cents(num(r.recoverable_amount)),
  from: String(r.start_date),
  to: (r.end_date as string | null) ?? null,
  key_id: (r.distribution_key_id as string | null) ?? null,
});

/**
 * Everything a regularisation of `lease` over the period decides on, from the read models, in one
 * transaction: the place's expenses (charges and services' recoverable parts), keys, estates, who
 * occupied what, and the charges part of the lease's rent calls.
 */
export async function regularisationFacts(
  sql: Sql,
  tenantId: string,
  lease: ChargeLease,
  window: { from: string; to: string },
) {
  return sql.asTenant(tenantId, async (tx) => {
    // One connection: its queries in turn.
    const charges = await tx.query<Row>(
      `SELECT ${CHARGE_SELECT} FROM charges WHERE tenant_id = $1 AND place_id = $2
         AND period_from <= $4::date AND period_to >= $3::date ORDER BY id`,
      [tenantId, lease.place_id, window.from, window.to],
    );
    const keys = await tx.query<Row>(
      `SELECT * FROM distribution_keys WHERE tenant_id = $1 AND place_id = $2`,
      [tenantId, lease.place_id],
    );
    const estates = await tx.query<Row>(
      `SELECT id FROM estates WHERE tenant_id = $1 AND place_id = $2 ORDER BY id`,
      [tenantId, lease.place_id],
    );
    const occupancies = await placeOccupancies(tx, tenantId, lease.place_id);
    const services = await tx.query<Row>(
      `SELECT * FROM service_contracts WHERE tenant_id = $1 AND place_id = $2
         AND start_date <= $3 AND (end_date IS NULL OR end_date >= $4)`,
      [tenantId, lease.place_id, window.to, window.from],
    );
    const calls = await tx.query<Row>(
      `SELECT period_start, period_end, charges_amount FROM rent_calls
         WHERE tenant_id = $1 AND lease_id = $2 AND period_start <= $4::date AND period_end >= $3::date`,
      [tenantId, lease.lease_id, window.from, window.to],
    );
    const expenses: Expense[] = [
      ...charges.map(toExpense),
      ...services.flatMap((s) => serviceExpenses(toService(s), window)),
    ];
    return {
      expenses,
      keys: keys.map(
        (k): DistributionKey => ({
          id: String(k.id),
          name: String(k.name),
          kind: k.kind as DistributionKey["kind"],
          shares: k.shares as DistributionKey["shares"],
        }),
      ),
      estate_ids: estates.map((e) => String(e.id)),
      occupancies: occupancies.map(({ settlement: _, ...o }): Occupancy => o),
      provisions: calls.map(
        (c): ProvisionCall => ({
          period_start: isoDay(c.period_start) as string,
          period_end: isoDay(c.period_end) as string,
          charges: cents(num(c.charges_amount)),
        }),
      ),
    };
  });
}

// ---------------------------------------------------------------- statement

const eur = formatEuro;

const KEY_NAMES: Record<string, string> = {
  TANTIEMES: "tantièmes",
  SURFACE: "surface",
  CONSUMPTION: "consommation",
  EQUAL: "parts égales",
};

/** Who and what a statement is about, as a person reads them (the lease's letter facts). */
export interface StatementParties {
  address: string;
  landlord: string;
  tenants: string;
  /** The day the balance is payable: a month after the statement reaches the tenant (art. 23). */
  payable_on: string;
}

/** The parties of a lease's statement; its balance payable a month after `sent_on` (art. 23). */
export async function statementParties(
  sql: Sql,
  tenantId: string,
  leaseId: string,
  sent_on: string,
): Promise<StatementParties & { facts: LetterFacts | null }> {
  const facts = await readLetterFacts(sql, tenantId, leaseId);
  return {
    facts,
    address: facts?.estate.address ?? "",
    landlord: facts?.landlord.name ?? "",
    tenants: (facts?.lessees ?? []).map((l) => `${l.first_name} ${l.last_name}`.trim()).join(", "),
    payable_on: addMonths(sent_on, 1),
  };
}

/** Why an expense is left out, in French, by the rule that left it out (the verdict's text is the API's). */
const EXCLUSION_REASONS: Record<string, string> = {
  [DECRET_87_713]: "non récupérable, absente de la liste limitative des charges récupérables",
  [DECRET_87_713_VIII]:
    "seules la taxe ou redevance d'enlèvement des ordures ménagères et la taxe de balayage sont récupérables",
  [ART_7_1]: "prescrite, plus de trois ans avant la régularisation",
};

const monthOf = (month: string) => longDate(`${month.slice(0, 7)}-01`).replace(/^1er /, "");

/** The statement of a regularisation (art. 23: by nature of charges, with the mode of distribution). */
export function statementMarkup(r: ReturnType<typeof toRegularisation>, parties: StatementParties): string {
  const lines = r.lines.map(
    (l) =>
      `| ${l.heading} | ${l.key_name} (${KEY_NAMES[l.key_kind] ?? l.key_kind}) | ${l.share} / ${l.total_shares} | ${eur(l.place_amount)} | ${eur(l.lease_amount)} |`,
  );
  const excluded = r.excluded.map(
    (e) =>
      `- ${e.label} (${eur(e.amount)}) : ${EXCLUSION_REASONS[e.legal_reference] ?? "écartée"} (${e.legal_reference})`,
  );
  const schedule = r.instalments.schedule.map((s) => `- ${monthOf(s.month)} : ${eur(s.amount)}`);
  return [
    "# Décompte de régularisation des charges",
    `Bailleur : **${parties.landlord || "—"}**`,
    "",
    `Locataire(s) : **${parties.tenants || "—"}**`,
    "",
    `Logement : ${parties.address || "—"}`,
    "",
    `Période du ${longDate(r.period.from)} au ${longDate(r.period.to)} (${r.days_occupied} jours occupés sur ${r.days_of_period}), décompte établi le ${longDate(r.regularised_on)}.`,
    "",
    "## Charges par nature et mode de répartition",
    "| Nature (décret n° 87-713) | Clé | Quote-part | Total immeuble | Part du locataire |",
    ...lines,
    "",
    `Charges récupérables de l'immeuble : ${eur(r.recoverable_total)}. Part du locataire : ${eur(r.lease_amount)}. Provisions appelées : ${eur(r.provisions_called)}.`,
    "",
    r.balance >= 0
      ? `**Solde dû par le locataire : ${eur(r.balance)}**, payable à compter du ${longDate(parties.payable_on)}, un mois après l'envoi de ce décompte (loi n° 89-462 du 6 juillet 1989, art. 23).`
      : `**Solde à rembourser au locataire : ${eur(-r.balance)}**`,
    ...(excluded.length ? ["", "## Dépenses écartées", ...excluded] : []),
    ...(schedule.length
      ? ["", "## Paiement par douzièmes (loi n° 89-462, art. 23, dernier alinéa)", ...schedule]
      : []),
    "",
    "Les pièces justificatives sont tenues à la disposition du locataire pendant six mois à compter de l'envoi de ce décompte (loi n° 89-462 du 6 juillet 1989, art. 23).",
  ].join("\n");
}

// ---------------------------------------------------------------- routes

const placeParams = z.strictObject({ place_id: uuid() });
const leaseParams = z.strictObject({ lease_id: uuid() });
const list = z.strictObject(pageQuery);

export const serviceQueries = resourceQueryRoutes(serviceResource, {
  within: (request, params) => requirePlace(request.server.platform.sql, tenantOf(request), params.place_id),
});

export async function chargeQueryRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/places/:place_id/charges",
    {
      schema: {
        tags,
        summary: "The place's charges (expenses), by period",
        params: placeParams,
        querystring: list,
        response: answers(z.array(chargeBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requirePlace(sql, tenantId, request.params.place_id);
      return sendSlice(
        request,
        reply,
        await listCharges(sql, tenantId, request.params.place_id),
        request.query,
      );
    },
  );

  api.get(
    "/api/charges/:charge_id",
    {
      schema: {
        tags,
        summary: "A charge",
        params: z.strictObject({ charge_id: uuid() }),
        response: answers(chargeBody),
      },
      config: read,
    },
    async (request, reply) => {
      const found = await readCharge(sql, tenantOf(request), request.params.charge_id);
      if (!found) throw notFound("Charge", request.params.charge_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  api.get(
    "/api/places/:place_id/distribution-keys",
    {
      schema: {
        tags,
        summary: "The place's distribution keys",
        params: placeParams,
        querystring: list,
        response: answers(z.array(distributionKeyBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requirePlace(sql, tenantId, request.params.place_id);
      const keys = await listDistributionKeys(sql, tenantId, request.params.place_id);
      return sendSlice(request, reply, keys, request.query);
    },
  );

  api.get(
    "/api/places/:place_id/charge-freezes",
    {
      schema: {
        tags,
        summary: "The place's frozen periods",
        params: placeParams,
        querystring: list,
        response: answers(z.array(chargeFreezeBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      await requirePlace(sql, tenantId, request.params.place_id);
      return sendSlice(
        request,
        reply,
        await listFreezes(sql, tenantId, request.params.place_id),
        request.query,
      );
    },
  );

  api.get(
    "/api/places/:place_id/charge-alerts",
    {
      schema: {
        tags,
        summary:
          "Charges alerts of the place's leases paying provisions: annual regularisation due, none 12 months after a period's end (art. 23)",
        params: placeParams,
        querystring: list,
        response: answers(z.array(chargeAlertBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { place_id } = request.params;
      await requirePlace(sql, tenantId, place_id);
      const [leases, regularisations] = await sql.asTenant(
        tenantId,
        async (tx) =>
          [
            await placeOccupancies(tx, tenantId, place_id),
            await tx.query<Row>(
              `SELECT lease_id, period_from, period_to FROM charge_regularisations WHERE tenant_id = $1 AND place_id = $2`,
              [tenantId, place_id],
            ),
          ] as const,
      );
      const alerts = chargeAlerts(
        leases.map(
          (l): AlertLease => ({ lease_id: l.lease_id, settlement: l.settlement, from: l.from, to: l.to }),
        ),
        regularisations.map((r) => ({
          lease_id: String(r.lease_id),
          from: isoDay(r.period_from) as string,
          to: isoDay(r.period_to) as string,
        })),
        legalToday(),
      );
      return sendSlice(request, reply, alerts, request.query);
    },
  );

  api.get(
    "/api/leases/:lease_id/charge-regularisations",
    {
      schema: {
        tags,
        summary: "The lease's charges regularisations (art. 23)",
        params: leaseParams,
        querystring: list,
        response: answers(z.array(regularisationBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { lease_id } = request.params;
      if (!(await readChargeLease(sql, tenantId, lease_id))) throw notFound("Lease", lease_id);
      return sendSlice(request, reply, await listRegularisations(sql, tenantId, lease_id), request.query);
    },
  );

  api.get(
    "/api/leases/:lease_id/charge-configuration",
    {
      schema: {
        tags,
        summary:
          "How the lease's charges are paid: provisions regularised yearly (art. 23) or a flat rate (art. 25-10, 25-18)",
        params: leaseParams,
        response: answers(chargeConfigurationBody),
      },
      config: read,
    },
    async (request) => {
      const { lease_id } = request.params;
      const lease = await readChargeLease(sql, tenantOf(request), lease_id);
      if (!lease) throw notFound("Lease", lease_id);
      const verdict = settlementVerdict(lease.lease_type, lease.settlement);
      return {
        lease_id,
        place_id: lease.place_id,
        estate_id: lease.estate_id,
        charge_settlement_mode: lease.charge_settlement_mode,
        settlement: lease.settlement,
        charges_amount: lease.charges_amount,
        regularised: lease.settlement === "PROVISION",
        legal_reference: verdict.legal_reference,
      };
    },
  );

  const regularisationParams = z.strictObject({ lease_id: uuid(), regularisation_id: uuid() });
  const oneRegularisation = async (tenantId: string, leaseId: string, id: string) => {
    const found = await readRegularisation(sql, tenantId, leaseId, id);
    if (!found) throw notFound("Charge regularisation", id);
    return found;
  };

  api.get(
    "/api/leases/:lease_id/charge-regularisations/:regularisation_id",
    {
      schema: {
        tags,
        summary: "A charges regularisation",
        params: regularisationParams,
        response: answers(regularisationBody),
      },
      config: read,
    },
    async (request) =>
      oneRegularisation(tenantOf(request), request.params.lease_id, request.params.regularisation_id),
  );

  api.get(
    "/api/leases/:lease_id/charge-regularisations/:regularisation_id/statement",
    {
      schema: {
        tags,
        summary: "The regularisation statement as PDF: charges by nature, distribution, balance (art. 23)",
        params: regularisationParams,
        response: pdfAnswers,
      },
      config: read,
    },
    async (request, reply) => {
      const r = await oneRegularisation(
        tenantOf(request),
        request.params.lease_id,
        request.params.regularisation_id,
      );
      // Printed again later, the balance is payable a month after the regularisation's day.
      const parties = await statementParties(
        sql,
        tenantOf(request),
        request.params.lease_id,
        r.regularised_on,
      );
      const bytes = await renderDocument(statementMarkup(r, parties), "Régularisation des charges");
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", contentDisposition("attachment", `regularisation-${r.period.to}.pdf`))
        .send(bytes);
    },
  );
}
