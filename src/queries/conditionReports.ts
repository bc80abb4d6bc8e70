import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import {
  type CompletedElement,
  type ConditionReportState,
  completedRooms,
  REPORT_TYPES,
  type ReportRoom,
} from "../events/conditionReports.ts";
import { CONDITIONS } from "../events/equipment.ts";
import { ART_3_2, compareRooms, DECRET_2016_382, exitMatchesEntry } from "../law/conditionReports.ts";
import type { Sql } from "../platform/db.ts";
import { conflict, notFound } from "../platform/errors.ts";
import { iso, isoDay } from "../platform/formatDates.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { setEtag } from "../platform/http/etag.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import type { Found } from "../platform/http/replyWithResource.ts";
import { answers, timestamp } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import { renderInThread } from "../platform/pdf/renderInThread.ts";
import { compileTemplate, documentOf, markupToContent } from "../platform/pdf/renderTemplate.ts";
import type { Row } from "../platform/projections/projection.ts";
import { dwellingAddressOf, postalAddressOf, readLeaseContractFacts } from "./leaseContractFacts.ts";
import { requireLease } from "./leases.ts";
import { ensureOwnLease, lesseeOf } from "./lesseeSpace.ts";
import { contentDisposition } from "./media.ts";
import { pdfAnswers } from "./rentCollection.ts";

/**
 * Condition reports' reads (docs/moving.md): list and one report of a lease, the comparison of an
 * exit report with the entry report, the PDF, and `exitReportFacts` for the deposit's deadline.
 */

/** The pg query interface every read-model read uses. */
export type Queryable = Sql;

const condition = z.enum(CONDITIONS);
const element = z.strictObject({
  element: z.string(),
  condition,
  comment: z.string().nullable(),
  media_ids: z.array(z.string()),
});
export const conditionReportBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    type: z.enum(REPORT_TYPES),
    date: z.string(),
    status: z.enum(["DRAFT", "SIGNED"]),
    signed_on: z.string().nullable(),
    rooms: z.array(
      z.strictObject({ room_id: z.string().nullable(), name: z.string(), elements: z.array(element) }),
    ),
    meter_readings: z.array(
      z.strictObject({ meter_id: z.string().nullable(), kind: z.string(), value: z.number() }),
    ),
    keys: z.array(z.strictObject({ kind: z.string(), count: z.number() })),
    completions: z.array(
      z.strictObject({
        received_on: z.string(),
        elements: z.array(element.extend({ room_name: z.string(), heating: z.boolean() })),
      }),
    ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "ConditionReport" });

const change = z.enum(["WORSE", "SAME", "BETTER", "ONLY_AT_ENTRY", "ONLY_AT_EXIT"]);
export const comparisonBody = z
  .strictObject({
    exit_report_id: uuid(),
    entry_report_id: uuid(),
    matches: z
      .boolean()
      .describe("Every element in the same condition at exit as at entry (completed by the tenant)"),
    rooms: z.array(
      z.strictObject({
        room_id: z.string().nullable(),
        name: z.string(),
        change,
        elements: z.array(
          z.strictObject({
            element: z.string(),
            entry_condition: condition.nullable(),
            exit_condition: condition.nullable(),
            change,
            entry_comment: z.string().nullable(),
            exit_comment: z.string().nullable(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: "ConditionReportComparison" });

type Live = Exclude<ConditionReportState, { status: "absent" }>;

const toReport = (row: Row) => {
  const state = row.state as Live;
  return {
    id: String(row.id),
    lease_id: state.lease_id,
    type: state.content.type,
    date: state.content.date,
    status: state.status,
    signed_on: state.signed_on,
    rooms: state.content.rooms,
    meter_readings: state.content.meter_readings,
    keys: state.content.keys,
    completions: state.completions,
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
};
export type ConditionReport = ReturnType<typeof toReport>;

async function reportRow(sql: Queryable, tenantId: string, leaseId: string, id: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      "SELECT id, state, revision, created_at, updated_at FROM condition_reports WHERE tenant_id = $1 AND lease_id = $2 AND id = $3",
      [tenantId, leaseId, id],
    ),
  );
  return row ?? null;
}

/** One report of the lease, with its revision (ETag); null when the lease has no such report. */
export async function readConditionReport(
  sql: Queryable,
  tenantId: string,
  leaseId: string,
  id: string,
): Promise<(Found & { report: ConditionReport }) | null> {
  const row = await reportRow(sql, tenantId, leaseId, id);
  if (!row) return null;
  const report = toReport(row);
  return { body: report, report, revision: Number(row.revision) };
}

/** The lease's latest signed entry report, as completed by the tenant. */
async function signedEntry(sql: Queryable, tenantId: string, leaseId: string) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT id, state, revision, created_at, updated_at FROM condition_reports
       WHERE tenant_id = $1 AND lease_id = $2 AND type = 'ENTRY' AND status = 'SIGNED'
       ORDER BY signed_on DESC, created_at DESC LIMIT 1`,
      [tenantId, leaseId],
    ),
  );
  return row ? toReport(row) : null;
}

const roomsOf = (report: ConditionReport): ReportRoom[] => completedRooms(report.rooms, report.completions);

/** The exit report against the lease's signed entry report; null when there is no entry to compare with. */
async function compare(sql: Queryable, tenantId: string, exit: ConditionReport) {
  const entry = await signedEntry(sql, tenantId, exit.lease_id);
  if (!entry) return null;
  const rooms = compareRooms(roomsOf(entry), exit.rooms);
  return { exit_report_id: exit.id, entry_report_id: entry.id, matches: exitMatchesEntry(rooms), rooms };
}

/**
 * What a termination takes from the lease's signed exit report, in one read; null when the lease
 * has no SIGNED EXIT report of that id.
 * - `matches`, the contract of the deposit's deadline (loi n° 89-462 art. 22: one month when the
 *   exit report matches the entry report, two otherwise): true when every element of the exit is
 *   in the entry's condition (as the tenant completed it), room by room; false otherwise, and when
 *   the lease has no signed entry report to compare with.
 * - `keys_returned_on`: the report's date when it lists keys handed back (décret n° 2016-382 art. 2:
 *   the report notes the keys), else null. The termination takes it when no return is recorded
 *   otherwise (docs/moving.md, "Termination").
 */
export async function exitReportFacts(
  db: Queryable,
  tenantId: string,
  leaseId: string,
  exitReportId: string,
): Promise<{ matches: boolean; keys_returned_on: string | null } | null> {
  const report = (await readConditionReport(db, tenantId, leaseId, exitReportId))?.report;
  if (report?.type !== "EXIT" || report.status !== "SIGNED") return null;
  return {
    matches: (await compare(db, tenantId, report))?.matches ?? false,
    keys_returned_on: report.keys.some((k) => k.count > 0) ? report.date : null,
  };
}

// ---------------------------------------------------------------- PDF

interface PdfView {
  title: string;
  report: ConditionReport;
  completions: (ConditionReport["completions"][number] & { elements: CompletedElement[] })[];
  legal: string;
  labels: typeof LABELS;
  parties: ReportParties;
  meters: { kind: string; value: number }[];
  /** An exit report: the entry report's date and what changed since, element by element. */
  exit: {
    entry_date: string | null;
    changes: { room: string; element: string; entry: string; exit: string }[];
  } | null;
}

/** The exit's changes against the entry, as the PDF lists them (the same comparison as the route's). */
export interface ExitChanges {
  entry_date: string | null;
  rooms: {
    name: string;
    elements: {
      element: string;
      entry_condition: string | null;
      exit_condition: string | null;
      change: string;
    }[];
  }[];
}

/** Who and where a report is about (décret n° 2016-382 art. 2-3): the dwelling and the parties. */
export interface ReportParties {
  address: string;
  lessor: { name: string; address: string | null };
  tenants: { name: string; address: string | null }[];
}

const LABELS = { NEW: "Neuf", GOOD: "Bon état", FAIR: "État d'usage", POOR: "Mauvais état" } as const;
/** Meter kinds as a person reads them (a report may also name its own). */
const METER_KINDS: Record<string, string> = {
  ELECTRICITY: "Électricité",
  GAS: "Gaz",
  WATER_HOT: "Eau chaude",
  WATER_COLD: "Eau froide",
  HEATING: "Chauffage",
  COOLING: "Climatisation",
};

const TEMPLATE = `# {{title}}

Établi contradictoirement le {{longDate report.date}} (décret n° 2016-382 du 30 mars 2016){{#if report.signed_on}}, signé le {{longDate report.signed_on}}{{else}} — projet, non signé{{/if}}.

## Le logement et les parties

| Élément | Description |
| Logement | {{parties.address}} |
| Bailleur | {{parties.lessor.name}}{{#if parties.lessor.address}}, {{parties.lessor.address}}{{/if}} |
{{#each parties.tenants}}
| Locataire | {{name}}{{#if address}}, {{address}}{{/if}} |
{{/each}}
{{#if exit}}

## Comparaison avec l'état des lieux d'entrée

{{#if exit.entry_date}}État des lieux d'entrée du {{longDate exit.entry_date}}.{{else}}Aucun état des lieux d'entrée signé : pas de comparaison possible.{{/if}}
{{#if exit.changes.length}}

| Pièce | Élément | À l'entrée | À la sortie |
{{#each exit.changes}}
| {{room}} | {{element}} | {{entry}} | {{exit}} |
{{/each}}
{{else}}
{{#if exit.entry_date}}Aucune différence : chaque élément est dans l'état constaté à l'entrée.{{/if}}
{{/if}}
{{/if}}
{{#if (eq report.type "EXIT")}}

Adresse du locataire après son départ : {{#each parties.tenants}}{{name}} : {{#if address}}{{address}}{{else}}non communiquée{{/if}}. {{/each}}
{{/if}}

## Relevés des compteurs

{{#each meters}}
- {{kind}} : {{number value}}
{{else}}
- Aucun relevé
{{/each}}

## Clés remises

{{#each report.keys}}
- {{kind}} : {{count}}
{{else}}
- Aucune clé
{{/each}}

{{#each report.rooms}}
## {{name}}

| Élément | État | Commentaire |
{{#each elements}}
| {{element}} | {{lookup @root.labels condition}} | {{#if comment}}{{comment}}{{else}}—{{/if}}{{#if media_ids.length}} ({{media_ids.length}} photo(s) jointe(s)){{/if}} |
{{/each}}
{{/each}}
{{#if completions.length}}

## Compléments du locataire (loi n° 89-462, art. 3-2)

{{#each completions}}
### Demande reçue le {{longDate received_on}}

| Pièce | Élément | État | Commentaire |
{{#each elements}}
| {{room_name}} | {{element}} | {{lookup @root.labels condition}} | {{#if comment}}{{comment}}{{else}}—{{/if}} |
{{/each}}
{{/each}}
{{/if}}

{{legal}}

## Signatures

| Le bailleur ou son mandataire | Le(s) locataire(s) |
| {{parties.lessor.name}} | {{#each parties.tenants}}{{name}}{{#unless @last}}, {{/unless}}{{/each}} |
| {{#if report.signed_on}}Signé le {{longDate report.signed_on}}{{else}}Signature{{/if}} | {{#if report.signed_on}}Signé le {{longDate report.signed_on}}{{else}}Signature{{/if}} |
`;

let compiled: ((view: PdfView) => string) | null = null;

/** The report's markup (src/platform/pdf/renderTemplate.ts). */
export function conditionReportMarkup(
  report: ConditionReport,
  parties: ReportParties,
  exitChanges: ExitChanges | null = null,
): string {
  compiled ??= compileTemplate<PdfView>(TEMPLATE);
  const title = report.type === "ENTRY" ? "État des lieux d'entrée" : "État des lieux de sortie";
  const legal = `Établi selon le ${DECRET_2016_382} ; le locataire peut demander de compléter l'état des lieux d'entrée dans les dix jours de son établissement, et pour les éléments de chauffage pendant le premier mois de la période de chauffe (${ART_3_2}).`;
  const meters = report.meter_readings.map((m) => ({ kind: METER_KINDS[m.kind] ?? m.kind, value: m.value }));
  const label = (c: string | null) => (c ? LABELS[c as keyof typeof LABELS] : "absent");
  const exit =
    report.type === "EXIT"
      ? {
          entry_date: exitChanges?.entry_date ?? null,
          changes: (exitChanges?.rooms ?? []).flatMap((r) =>
            r.elements
              .filter((e) => e.change !== "SAME")
              .map((e) => ({
                room: r.name,
                element: e.element,
                entry: label(e.entry_condition),
                exit: label(e.exit_condition),
              })),
          ),
        }
      : null;
  return compiled({
    title,
    report,
    completions: report.completions,
    legal,
    labels: LABELS,
    parties,
    meters,
    exit,
  });
}

/** The dwelling and the parties of a lease, as its reports name them. */
export async function reportParties(db: Sql, tenantId: string, leaseId: string): Promise<ReportParties> {
  const facts = await readLeaseContractFacts(db, tenantId, leaseId, "");
  const nameOf = (r: Row | null | undefined) =>
    [r?.first_name, r?.last_name].filter(Boolean).join(" ") || String(r?.legal_name ?? "") || "—";
  return {
    address: dwellingAddressOf(facts?.estate, facts?.place) ?? "—",
    lessor: { name: facts?.owner ? nameOf(facts.owner) : "—", address: postalAddressOf(facts?.owner) },
    tenants: (facts?.parties ?? [])
      .filter((p) => p.role !== "Guarantor")
      .map((p) => ({ name: nameOf(p.lessee), address: postalAddressOf(p.lessee) })),
  };
}

/** What a render thread runs: pdfmake is loaded there, never on the API thread. */
export async function renderConditionReportHere(input: { markup: string; title: string }): Promise<Buffer> {
  const { renderPdf } = await import("../platform/pdf/renderPdf.ts");
  return renderPdf(documentOf(markupToContent(input.markup), { title: input.title }));
}

// ---------------------------------------------------------------- routes

const leaseParams = z.strictObject({ lease_id: uuid() });
const reportParams = z.strictObject({ lease_id: uuid(), report_id: uuid() });
const listQuery = z.strictObject({ ...pageQuery, type: z.enum(REPORT_TYPES).optional() });
const tags = ["Condition reports"];
const config = { access: "LeasesRead" } as const;

export async function conditionReportQueries(app: FastifyInstance) {
  const { sql } = app.platform;
  const requireReport = async (tenantId: string, leaseId: string, id: string) => {
    await requireLease(sql, tenantId, leaseId);
    const found = await readConditionReport(sql, tenantId, leaseId, id);
    if (!found) throw notFound("Condition report", id);
    return found;
  };

  const listReports = async (tenantId: string, lease_id: string, type: string | null) => {
    const rows = await sql.asTenant(tenantId, (tx) =>
      tx.query<Row>(
        `SELECT id, state, revision, created_at, updated_at FROM condition_reports
         WHERE tenant_id = $1 AND lease_id = $2 AND ($3::text IS NULL OR type = $3)
         ORDER BY date, created_at, id`,
        [tenantId, lease_id, type],
      ),
    );
    return rows.map(toReport);
  };

  app.get(
    "/api/leases/:lease_id/condition-reports",
    {
      schema: {
        tags,
        summary: "List the condition reports of a lease (by date)",
        params: leaseParams,
        querystring: listQuery,
        response: answers(z.array(conditionReportBody)),
      },
      config,
    },
    async (request, reply) => {
      const { lease_id } = request.params as z.infer<typeof leaseParams>;
      const query = request.query as z.infer<typeof listQuery>;
      const tenantId = tenantOf(request);
      await requireLease(sql, tenantId, lease_id);
      return sendSlice(request, reply, await listReports(tenantId, lease_id, query.type ?? null), query);
    },
  );

  // The lessee reads the reports of their own lease (to complete the entry one, docs/portal.md).
  app.get(
    "/api/lessee/leases/:lease_id/condition-reports",
    {
      schema: {
        tags: ["Lessee space"],
        summary: "The condition reports of one of the signed-in lessee's leases (by date)",
        params: leaseParams,
        querystring: listQuery,
        response: answers(z.array(conditionReportBody)),
      },
      config: { access: "lessee:leases:read" },
    },
    async (request, reply) => {
      const { lease_id } = request.params as z.infer<typeof leaseParams>;
      const query = request.query as z.infer<typeof listQuery>;
      const caller = lesseeOf(request);
      await ensureOwnLease(sql, caller, lease_id);
      return sendSlice(
        request,
        reply,
        await listReports(caller.tenant_id, lease_id, query.type ?? null),
        query,
      );
    },
  );

  app.get(
    "/api/leases/:lease_id/condition-reports/:report_id",
    {
      schema: {
        tags,
        summary: "Get a condition report",
        params: reportParams,
        response: answers(conditionReportBody),
      },
      config,
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      const found = await requireReport(tenantOf(request), lease_id, report_id);
      setEtag(reply, found.revision);
      return found.body;
    },
  );

  app.get(
    "/api/leases/:lease_id/condition-reports/:report_id/comparison",
    {
      schema: {
        tags,
        summary:
          "An exit report against the lease's signed entry report (as the tenant completed it), room by room and element by element; 409 for an entry report or when there is no signed entry report",
        params: reportParams,
        response: answers(comparisonBody),
      },
      config,
    },
    async (request) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      const tenantId = tenantOf(request);
      const { report } = await requireReport(tenantId, lease_id, report_id);
      if (report.type !== "EXIT")
        throw conflict(`Condition report ${report_id} is an entry report: compare an exit report`);
      const comparison = await compare(sql, tenantId, report);
      if (!comparison) throw conflict(`Lease ${lease_id} has no signed entry report to compare with`);
      return comparison;
    },
  );

  /** The report as PDF: the staff's route and the lessee's (their own lease only, else 404). */
  const sendReportPdf = async (tenantId: string, leaseId: string, reportId: string, reply: FastifyReply) => {
    const { report } = await requireReport(tenantId, leaseId, reportId);
    const title = report.type === "ENTRY" ? "État des lieux d'entrée" : "État des lieux de sortie";
    const parties = await reportParties(sql, tenantId, leaseId);
    const entry = report.type === "EXIT" ? await signedEntry(sql, tenantId, leaseId) : null;
    const changes = entry
      ? { entry_date: entry.date, rooms: compareRooms(roomsOf(entry), report.rooms) }
      : null;
    const bytes = await renderInThread(import.meta.url, "renderConditionReportHere", {
      markup: conditionReportMarkup(report, parties, changes),
      title,
    });
    const name = `etat-des-lieux-${report.type === "ENTRY" ? "entree" : "sortie"}-${isoDay(report.date)}-${report.id.slice(0, 8)}.pdf`;
    return reply
      .header("content-type", "application/pdf")
      .header("content-disposition", contentDisposition("attachment", name))
      .send(bytes);
  };

  app.get(
    "/api/leases/:lease_id/condition-reports/:report_id/pdf",
    {
      schema: { tags, summary: "The condition report as PDF", params: reportParams, response: pdfAnswers },
      config,
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      return sendReportPdf(tenantOf(request), lease_id, report_id, reply);
    },
  );

  app.get(
    "/api/lessee/leases/:lease_id/condition-reports/:report_id/pdf",
    {
      schema: {
        tags: ["Lessee space"],
        summary:
          "A condition report of one of the signed-in lessee's leases as PDF (décret n° 2016-382 art. 2-3); another lessee's lease answers 404",
        params: reportParams,
        response: pdfAnswers,
      },
      config: { access: "lessee:leases:download" },
    },
    async (request, reply) => {
      const { lease_id, report_id } = request.params as z.infer<typeof reportParams>;
      const caller = lesseeOf(request);
      await ensureOwnLease(sql, caller, lease_id);
      return sendReportPdf(caller.tenant_id, lease_id, report_id, reply);
    },
  );
}
