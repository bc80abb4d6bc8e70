import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { LOI_89 } from "../law/verdict.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { pageQuery, sendSlice } from "../platform/http/pagination.ts";
import { answers } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import { compileTemplate } from "../platform/pdf/renderTemplate.ts";
import { leaseParams } from "./leaseBodies.ts";
import { contentDisposition } from "./media.ts";
import { pdfAnswers } from "./rentCollection.ts";
import { readLeaseStatus } from "./rentCycle.ts";
import { documentView, readLetterFacts, renderDocument } from "./rentDocuments.ts";

/** Notices of a lease (docs/moving.md "Notices"): the `lease_notices` read model and the letter. */

const tags = ["Moving in and out"];
const read = { access: "LeasesRead" as const };

export const noticeBody = z
  .strictObject({
    id: uuid(),
    lease_id: uuid(),
    given_by: z.enum(["LESSEE", "LESSOR"]),
    received_on: z.iso.date(),
    reason: z
      .string()
      .nullable()
      .describe("The reason's code (free text for notices given through PUT .../status)"),
    notice_end_date: z.iso.date().nullable(),
    sale_offer_until: z.iso
      .date()
      .nullable()
      .describe(
        "A notice for sale of an unfurnished dwelling: an offer to sell to the lessee until this day (loi n° 89-462 art. 15 II)",
      ),
    solidarity_ends_on: z.iso
      .date()
      .nullable()
      .describe(
        "A DOMESTIC_VIOLENCE notice: the co-tenant victim's joint liability, and their guarantor's, ends this day (art. 8-2)",
      ),
    status: z.enum(["IN_FORCE", "WITHDRAWN"]),
    recorded_at: z.string(),
  })
  .meta({ id: "LeaseNotice" });
export type Notice = z.output<typeof noticeBody>;

export const noticeParams = z.strictObject({ lease_id: uuid(), notice_id: uuid() });

/** A lease's notices, oldest first; null when the tenant has no such lease. */
export async function readNotices(sql: Sql, tenantId: string, leaseId: string): Promise<Notice[] | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ notices: Notice[] }>("SELECT notices FROM lease_notices WHERE tenant_id = $1 AND id = $2", [
      tenantId,
      leaseId,
    ]),
  );
  // Notices recorded before 2026-12 have neither date: null.
  if (row)
    return row.notices.map((n) => ({
      ...n,
      sale_offer_until: n.sale_offer_until ?? null,
      solidarity_ends_on: n.solidarity_ends_on ?? null,
    }));
  return (await readLeaseStatus(sql, tenantId, leaseId)) === null ? null : [];
}

export async function readNotice(sql: Sql, tenantId: string, leaseId: string, noticeId: string) {
  const notices = await readNotices(sql, tenantId, leaseId);
  if (notices === null) throw notFound("Lease", leaseId);
  const notice = notices.find((n) => n.id === noticeId.toLowerCase());
  if (!notice) throw notFound("Notice", noticeId);
  return notice;
}

const REASON_TEXT: Record<string, string> = {
  TENSE_ZONE: "logement situé en zone tendue",
  FIRST_JOB: "obtention d'un premier emploi",
  JOB_TRANSFER: "mutation professionnelle",
  JOB_LOSS: "perte d'emploi",
  NEW_JOB_AFTER_LOSS: "nouvel emploi consécutif à une perte d'emploi",
  HEALTH: "état de santé justifiant un changement de domicile",
  RSA_OR_AAH: "bénéficiaire du RSA ou de l'AAH",
  SOCIAL_HOUSING: "attribution d'un logement social",
  SALE: "vente du logement",
  REPOSSESSION: "reprise du logement pour y habiter",
  LEGITIMATE_SERIOUS_REASON: "motif légitime et sérieux",
};

const LETTER = compileTemplate<{
  parties: ReturnType<typeof documentView>;
  notice: Notice;
  reason_text: string;
  lessee: boolean;
  law: string;
}>(`# Congé du bail {{parties.lease.reference}}

Bailleur : **{{parties.landlord.name}}**{{#if parties.landlord.address}}, {{parties.landlord.address}}{{/if}}

Locataire(s) : **{{parties.lessee_names}}**

Logement : {{parties.estate.address}}

{{#if lessee}}Le(s) locataire(s) {{parties.lessee_names}} donne(nt) congé du logement ci-dessus au bailleur {{parties.landlord.name}}.{{else}}Le bailleur {{parties.landlord.name}} donne congé du logement ci-dessus à {{parties.lessee_names}}, pour le terme du bail.{{/if}}

Congé reçu le {{date notice.received_on}}.{{#if reason_text}} Motif : {{reason_text}}.{{/if}}

{{#if notice.notice_end_date}}Le délai de préavis prend fin le **{{date notice.notice_end_date}}**.{{/if}}

{{law}}
`);

/** The notice as a letter (PDF), on the rent cycle's document pipeline. */
async function noticeLetter(sql: Sql, tenantId: string, notice: Notice): Promise<Buffer> {
  const facts = await readLetterFacts(sql, tenantId, notice.lease_id);
  if (!facts) throw notFound("Lease", notice.lease_id);
  const lessee = notice.given_by === "LESSEE";
  const law = lessee
    ? `Délai de préavis : ${LOI_89}, art. 15 I (bail nu), art. 25-8 I (bail meublé). Le locataire qui invoque un délai réduit en précise le motif et le justifie.`
    : `Congé du bailleur : ${LOI_89}, art. 15 I (six mois avant le terme, bail nu) ou art. 25-8 I (trois mois, bail meublé), motivé par la vente, la reprise ou un motif légitime et sérieux.`;
  const markup = LETTER({
    parties: documentView(facts, {}),
    notice,
    reason_text: REASON_TEXT[notice.reason ?? ""] ?? notice.reason ?? "",
    lessee,
    law,
  });
  return renderDocument(markup, "Congé");
}

export async function leaseNoticeQueries(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.get(
    "/api/leases/:lease_id/notices",
    {
      schema: {
        tags,
        summary: "The notices given on the lease, oldest first",
        params: leaseParams,
        querystring: z.strictObject(pageQuery),
        response: answers(z.array(noticeBody)),
      },
      config: read,
    },
    async (request, reply) => {
      const notices = await readNotices(sql, tenantOf(request), request.params.lease_id);
      if (notices === null) throw notFound("Lease", request.params.lease_id);
      return sendSlice(request, reply, notices, request.query);
    },
  );

  api.get(
    "/api/leases/:lease_id/notices/:notice_id",
    {
      schema: {
        tags,
        summary: "One notice of the lease",
        params: noticeParams,
        response: answers(noticeBody),
      },
      config: read,
    },
    async (request) => readNotice(sql, tenantOf(request), request.params.lease_id, request.params.notice_id),
  );

  api.get(
    "/api/leases/:lease_id/notices/:notice_id/letter",
    {
      schema: {
        tags,
        summary: "The notice as a letter (PDF)",
        params: noticeParams,
        response: pdfAnswers,
      },
      config: read,
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const notice = await readNotice(sql, tenantId, request.params.lease_id, request.params.notice_id);
      const bytes = await noticeLetter(sql, tenantId, notice);
      return reply
        .header("content-type", "application/pdf")
        .header("content-disposition", contentDisposition("attachment", `conge-${notice.received_on}.pdf`))
        .send(bytes);
    },
  );
}
