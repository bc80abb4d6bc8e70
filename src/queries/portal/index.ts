import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { LESSEE_SCOPES, userTokens } from "../../platform/http/userTokens.ts";
import { finishSignIn, startSignIn } from "./oidc.ts";
import {
  type ApiAnswer,
  answerOf,
  callApi,
  cookieOptions,
  frenchDate,
  html,
  PageError,
  pagePlugins,
  refusalText,
  sealer,
  sendFileAnswer,
  sessions,
  staticFile,
  views,
} from "./web.ts";

/**
 * The tenant's portal, `/portal` (docs/portal.md): a lessee signs in with the tenant's provider
 * and sees their leases, account and documents, and signs their lease with the emailed code.
 * Every page is an answer of the lessee's space (`/api/lessee/...`) called with the lessee's own
 * token: another lessee's lease is a 404 here because it is one there.
 */

const BASE = "/portal";
const SESSION = "pms_portal";
const here = dirname(fileURLToPath(import.meta.url));
export const STATIC_DIR = join(here, "static");
export const TEMPLATES_DIR = join(here, "templates");

interface LesseeSession {
  tenant_id: string;
  tenant_name: string;
  credential: string;
  subject: string;
  exp: number;
}

const STATUS: Record<string, string> = {
  DRAFT: "En préparation",
  PENDING_SIGNATURE: "En attente de signature",
  ACTIVE: "En cours",
  NOTICE: "Congé donné",
  FINALISATION: "En fin de bail",
  TERMINATED: "Terminé",
  EXPIRED: "Arrivé à son terme",
};
const TYPE: Record<string, string> = {
  UNFURNISHED: "Location vide",
  FURNISHED: "Location meublée",
  MOBILITY: "Bail mobilité",
  STUDENT: "Bail étudiant",
  COMMERCIAL: "Bail commercial",
  PROFESSIONAL: "Bail professionnel",
  PARKING: "Stationnement",
};
const CALL_STATUS: Record<string, string> = {
  PENDING: "À payer",
  PARTIALLY_PAID: "Payé en partie",
  PAID: "Payé",
  OVERDUE: "En retard",
  CANCELLED: "Annulé",
};
const ENTRY: Record<string, string> = {
  OPENING_BALANCE: "Solde à la reprise du bail",
  RENT_CALL: "Avis d'échéance",
  PAYMENT: "Paiement",
  PAYMENT_CANCELLED: "Paiement annulé",
};
const SIGNATORY_ROLE: Record<string, string> = {
  Primary: "Locataire",
  CoTenant: "Colocataire",
  Guarantor: "Garant",
  Lessor: "Bailleur",
};
const SIGNATORY_STATUS: Record<string, string> = {
  PENDING: "Pas encore signé",
  SIGNED: "A signé",
  LOCKED: "Bloqué",
};
/** The cases of loi n° 89-462 art. 15 I that shorten a lessee's notice to one month. */
const NOTICE_REASONS: [string, string][] = [
  ["TENSE_ZONE", "Le logement est en zone tendue"],
  ["FIRST_JOB", "Premier emploi"],
  ["JOB_TRANSFER", "Mutation professionnelle"],
  ["JOB_LOSS", "Perte d'emploi"],
  ["NEW_JOB_AFTER_LOSS", "Nouvel emploi après une perte d'emploi"],
  ["HEALTH", "État de santé justifiant un changement de domicile"],
  ["RSA_OR_AAH", "Bénéficiaire du RSA ou de l'AAH"],
  ["SOCIAL_HOUSING", "Attribution d'un logement social"],
];
const CONDITION: Record<string, string> = {
  NEW: "Neuf",
  GOOD: "Bon état",
  FAIR: "État d'usage",
  POOR: "Mauvais état",
};
const NOTES: Record<string, string> = {
  conge: "Votre congé est enregistré.",
  complete: "Votre complément à l'état des lieux est enregistré.",
  "code-envoye": "Un code à 6 chiffres vient de vous être envoyé par courriel. Il est valable 10 minutes.",
  signe: "Votre signature est enregistrée.",
};

const leaseTitle = (lease: Record<string, unknown>) =>
  `${TYPE[String(lease.lease_type)] ?? "Bail"} à partir du ${frenchDate(lease.start_date)}`;
const leaseView = (lease: Record<string, unknown>) => ({
  ...lease,
  title: leaseTitle(lease),
  status_text: STATUS[String(lease.status)] ?? String(lease.status),
  type_text: TYPE[String(lease.lease_type)] ?? String(lease.lease_type),
});

const leaseParams = z.strictObject({ lease_id: z.uuid() });
const callParams = z.strictObject({ lease_id: z.uuid(), call_id: z.uuid() });
const codeBody = z.object({ signatory_id: z.uuid().optional() });
const signBody = z.object({ signatory_id: z.uuid(), otp: z.string() });
const completionForm = z.object({
  report_id: z.uuid(),
  room_name: z.string().trim().min(1).max(255),
  element: z.string().trim().min(1).max(255),
  condition: z.enum(["NEW", "GOOD", "FAIR", "POOR"]),
  comment: z.string().trim().max(2000).default(""),
  heating: z.literal("oui").optional(),
});
const noticeForm = z.object({
  reason: z.enum([...NOTICE_REASONS.map(([code]) => code), ""]).default(""),
  confirm: z.literal("oui"),
});

/** A path parameter that is not an id is simply not found (never a 500). */
function paramsOf<T extends z.ZodType>(schema: T, request: FastifyRequest): z.output<T> {
  const parsed = schema.safeParse(request.params);
  if (!parsed.success) throw new PageError(404, "Cette page n'existe pas.");
  return parsed.data;
}

export async function portalPages(app: FastifyInstance): Promise<void> {
  const { sql, config } = app.platform;
  const render = views(TEMPLATES_DIR);
  const seal = sealer(config.PMS_SESSION_SECRET);
  const tokens = userTokens(sql, { jwksCooldownMs: config.PMS_JWKS_COOLDOWN_MS });
  await pagePlugins(app, render, BASE);
  staticFile(app, `${BASE}/static/pages.css`, join(STATIC_DIR, "pages.css"), "text/css; charset=utf-8");
  staticFile(
    app,
    `${BASE}/static/portal.js`,
    join(STATIC_DIR, "portal.js"),
    "text/javascript; charset=utf-8",
  );

  const page = { config: { access: "public" as const }, schema: { hide: true } };
  const form = { ...page, preHandler: app.csrfProtection };

  const { signedIn, required: requireSession } = sessions<LesseeSession>(
    seal,
    SESSION,
    "Votre session a expiré : reconnectez-vous depuis la page d'accueil du portail.",
  );
  const show = (
    reply: FastifyReply,
    name: string,
    session: LesseeSession | null,
    view: Record<string, unknown>,
    status = 200,
  ) =>
    html(
      reply,
      render(name, {
        base: BASE,
        script: `${BASE}/static/portal.js`,
        csrf: reply.generateCsrf(),
        session,
        ...view,
      }),
      status,
    );
  const expect = answerOf;
  const api = (
    request: FastifyRequest,
    session: LesseeSession,
    method: "GET" | "POST",
    url: string,
    body?: unknown,
  ) => callApi(request, session.credential, method, url, body);

  app.get(BASE, page, async (request, reply) => {
    const session = await signedIn(request);
    if (!session) {
      const espace = String((request.query as Record<string, unknown>).espace ?? "")
        .trim()
        .slice(0, 200);
      return show(reply, "portal-home", null, { title: "Portail locataire", espace });
    }
    const leases = expect(await api(request, session, "GET", "/api/lessee/leases?limit=100")) as Record<
      string,
      unknown
    >[];
    return show(reply, "portal-leases", session, { title: "Mes baux", leases: leases.map(leaseView) });
  });

  app.get(`${BASE}/login`, page, async (request, reply) => {
    const espace = String((request.query as Record<string, unknown>).espace ?? "")
      .trim()
      .slice(0, 200);
    return startSignIn(
      request,
      reply,
      { sql, sealer: seal, base: BASE, scope: `openid ${LESSEE_SCOPES.join(" ")}` },
      espace,
    );
  });

  app.get(`${BASE}/callback`, page, async (request, reply) => {
    const done = await finishSignIn(request, reply, { sql, sealer: seal, base: BASE, tokens });
    if (!done.identity.roles.includes("lessee"))
      throw new PageError(
        403,
        "Ce compte n'est pas celui d'un locataire : le portail est réservé aux locataires.",
      );
    const exp = Math.floor(Date.now() / 1000) + 8 * 3600;
    const session: LesseeSession = {
      tenant_id: done.tenant_id,
      tenant_name: done.tenant_name,
      credential: done.credential,
      subject: done.identity.subject,
      exp,
    };
    reply.setCookie(SESSION, await seal.seal({ ...session }), cookieOptions(BASE));
    return reply.redirect(BASE, 303);
  });

  app.post(`${BASE}/logout`, form, async (_request, reply) => {
    reply.clearCookie(SESSION, { path: BASE });
    return show(reply, "portal-home", null, { title: "Vous êtes déconnecté", signedOut: true, espace: "" });
  });

  app.get(`${BASE}/leases/:lease_id`, page, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const lease = expect(await api(request, session, "GET", `/api/lessee/leases/${lease_id}`));
    const signature = await api(request, session, "GET", `/api/lessee/leases/${lease_id}/signature`);
    const signed = signature.status === 200 && signature.json().status === "COMPLETED";
    const calls = expect(
      await api(request, session, "GET", `/api/lessee/leases/${lease_id}/rent-calls?limit=1000`),
    ) as Record<string, unknown>[];
    const receipts = calls
      .filter((c) => c.status === "PAID" || c.status === "PARTIALLY_PAID")
      .map((c) => ({
        ...c,
        label: `${c.status === "PAID" ? "Quittance" : "Reçu"} du ${frenchDate(c.period_start)} au ${frenchDate(c.period_end)}`,
      }));
    const query = request.query as Record<string, unknown>;
    return show(reply, "portal-lease", session, {
      title: leaseTitle(lease),
      lease: leaseView(lease),
      note: NOTES[String(query.ok)] ?? undefined,
      canGiveNotice: lease.status === "ACTIVE" && !lease.notice_date,
      reasons: NOTICE_REASONS.map(([code, label]) => ({ code, label })),
      signature: signature.status === 200 ? signature.json() : null,
      signed,
      pendingSignature: signature.status === 200 && signature.json().status === "PENDING",
      receipts,
    });
  });

  app.get(`${BASE}/leases/:lease_id/account`, page, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const lease = expect(await api(request, session, "GET", `/api/lessee/leases/${lease_id}`));
    const account = expect(await api(request, session, "GET", `/api/lessee/leases/${lease_id}/account`));
    const calls = expect(
      await api(request, session, "GET", `/api/lessee/leases/${lease_id}/rent-calls?limit=1000`),
    ) as Record<string, unknown>[];
    return show(reply, "portal-account", session, {
      title: `Mon compte : ${leaseTitle(lease)}`,
      lease: leaseView(lease),
      account,
      owes: account.balance > 0,
      entries: (account.entries as Record<string, unknown>[]).map((e) => ({
        ...e,
        kind_text: ENTRY[String(e.kind)] ?? e.kind,
      })),
      calls: calls.map((c) => ({
        ...c,
        status_text: CALL_STATUS[String(c.status)] ?? c.status,
        receipt: c.status === "PAID" || c.status === "PARTIALLY_PAID",
      })),
    });
  });

  app.get(`${BASE}/leases/:lease_id/receipts/:call_id`, page, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id, call_id } = paramsOf(callParams, request);
    const answer = await api(
      request,
      session,
      "GET",
      `/api/lessee/leases/${lease_id}/rent-calls/${call_id}/receipt`,
    );
    if (answer.status !== 200) expect(answer);
    return sendFileAnswer(reply, answer);
  });

  app.get(`${BASE}/leases/:lease_id/signed.pdf`, page, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const answer = await api(request, session, "GET", `/api/lessee/leases/${lease_id}/signature/document`);
    if (answer.status !== 200) expect(answer);
    return sendFileAnswer(reply, answer);
  });

  app.post(`${BASE}/leases/:lease_id/notice`, form, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const body = noticeForm.safeParse(request.body);
    if (!body.success)
      throw new PageError(400, "Cochez la case qui confirme votre congé, puis envoyez le formulaire.");
    const answer = await api(request, session, "POST", `/api/lessee/leases/${lease_id}/notices`, {
      reason: body.data.reason || null,
    });
    if (answer.status >= 400) expect(answer);
    return reply.redirect(`${BASE}/leases/${lease_id}?ok=conge`, 303);
  });

  /** The signed entry report and what the lessee added to it; the completion form within its window. */
  const entryPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    session: LesseeSession,
    lease_id: string,
    extra: { error?: string; status?: number } = {},
  ) => {
    const lease = expect(await api(request, session, "GET", `/api/lessee/leases/${lease_id}`));
    const reports = expect(
      await api(request, session, "GET", `/api/lessee/leases/${lease_id}/condition-reports?type=ENTRY`),
    ) as Record<string, any>[];
    const report = reports.filter((r) => r.status === "SIGNED").at(-1) ?? null;
    const named = (e: Record<string, unknown>) => ({
      ...e,
      condition_text: CONDITION[String(e.condition)] ?? e.condition,
    });
    const query = request.query as Record<string, unknown>;
    return show(
      reply,
      "portal-entry",
      session,
      {
        title: `État des lieux d'entrée : ${leaseTitle(lease)}`,
        lease: leaseView(lease),
        report: report && {
          ...report,
          rooms: report.rooms.map((r: Record<string, any>) => ({ ...r, elements: r.elements.map(named) })),
          completions: report.completions.map((c: Record<string, any>) => ({
            ...c,
            elements: c.elements.map(named),
          })),
        },
        drafts: reports.some((r) => r.status === "DRAFT"),
        conditions: Object.entries(CONDITION).map(([code, label]) => ({ code, label })),
        note: NOTES[String(query.ok)] ?? undefined,
        error: extra.error,
      },
      extra.status ?? 200,
    );
  };

  app.get(`${BASE}/leases/:lease_id/entry-report`, page, async (request, reply) => {
    const session = await requireSession(request);
    return entryPage(request, reply, session, paramsOf(leaseParams, request).lease_id);
  });

  app.post(`${BASE}/leases/:lease_id/entry-report`, form, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const body = completionForm.safeParse(request.body);
    if (!body.success)
      return entryPage(request, reply, session, lease_id, {
        error: "Indiquez la pièce, l'élément et son état.",
        status: 400,
      });
    const { report_id, room_name, element, condition, comment, heating } = body.data;
    const answer = await api(
      request,
      session,
      "POST",
      `/api/lessee/leases/${lease_id}/condition-reports/${report_id}/completions`,
      { elements: [{ room_name, element, condition, comment: comment || null, heating: heating === "oui" }] },
    );
    if (answer.status < 300)
      return reply.redirect(`${BASE}/leases/${lease_id}/entry-report?ok=complete`, 303);
    return entryPage(request, reply, session, lease_id, {
      error: refusalText(answer),
      status: answer.status,
    });
  });

  /** The signing page: who signs, who has signed, the code form for the lessee's own signatory. */
  const signingPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    session: LesseeSession,
    lease_id: string,
    extra: { error?: string; signatory_id?: string; note?: string; status?: number } = {},
  ) => {
    const lease = expect(await api(request, session, "GET", `/api/lessee/leases/${lease_id}`));
    const answer = await api(request, session, "GET", `/api/lessee/leases/${lease_id}/signature`);
    const signature = answer.status === 200 ? answer.json() : null;
    if (answer.status !== 200 && answer.status !== 404) expect(answer);
    const signatories = ((signature?.signatories ?? []) as Record<string, unknown>[]).map((s) => ({
      ...s,
      role_text: SIGNATORY_ROLE[String(s.role)] ?? s.role,
      status_text: SIGNATORY_STATUS[String(s.status)] ?? s.status,
      signed: s.status === "SIGNED",
    }));
    return show(
      reply,
      "portal-signature",
      session,
      {
        title: `Signer : ${leaseTitle(lease)}`,
        lease: leaseView(lease),
        signature,
        signatories,
        pending: signature?.status === "PENDING",
        completed: signature?.status === "COMPLETED",
        signatory_id: extra.signatory_id,
        note: extra.note,
        error: extra.error,
      },
      extra.status ?? 200,
    );
  };

  app.get(`${BASE}/leases/:lease_id/signature`, page, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const query = request.query as Record<string, unknown>;
    const signatory = z.uuid().safeParse(query.signataire);
    return signingPage(request, reply, session, lease_id, {
      signatory_id: signatory.success ? signatory.data : undefined,
      note: NOTES[String(query.ok)] ?? undefined,
    });
  });

  // The code goes to the lessee's own signatory: the API refuses (403) any other, so the first
  // pending lessee signatory it accepts is theirs.
  app.post(`${BASE}/leases/:lease_id/signature/code`, form, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const given = codeBody.safeParse(request.body);
    const current = await api(request, session, "GET", `/api/lessee/leases/${lease_id}/signature`);
    const signatories = (current.status === 200 ? expect(current).signatories : []) as {
      signatory_id: string;
      lessee_id: string | null;
      status: string;
    }[];
    const candidates = signatories
      .filter((s) => s.lessee_id && s.status === "PENDING")
      .filter(
        (s) => !given.success || !given.data.signatory_id || s.signatory_id === given.data.signatory_id,
      );
    let last: ApiAnswer | null = null;
    for (const s of candidates) {
      last = await api(request, session, "POST", `/api/lessee/leases/${lease_id}/signature/request`, {
        signatory_id: s.signatory_id,
      });
      if (last.status === 200)
        return reply.redirect(
          `${BASE}/leases/${lease_id}/signature?signataire=${s.signatory_id}&ok=code-envoye`,
          303,
        );
      if (last.status !== 403) break;
    }
    const error = last ? refusalText(last) : "Aucune signature ne vous attend sur ce bail.";
    return signingPage(request, reply, session, lease_id, {
      error,
      status: last?.status === 403 || !last ? 409 : last.status,
    });
  });

  app.post(`${BASE}/leases/:lease_id/signature/sign`, form, async (request, reply) => {
    const session = await requireSession(request);
    const { lease_id } = paramsOf(leaseParams, request);
    const body = signBody.safeParse(request.body);
    if (!body.success)
      return signingPage(request, reply, session, lease_id, {
        error: "Saisissez le code à 6 chiffres reçu par courriel.",
        status: 400,
      });
    const otp = body.data.otp.replace(/\s/g, "");
    const answer = await api(request, session, "POST", `/api/lessee/leases/${lease_id}/signature/validate`, {
      signatory_id: body.data.signatory_id,
      otp,
    });
    if (answer.status === 200) return reply.redirect(`${BASE}/leases/${lease_id}/signature?ok=signe`, 303);
    return signingPage(request, reply, session, lease_id, {
      error: refusalText(answer),
      signatory_id: body.data.signatory_id,
      status: answer.status,
    });
  });
}
