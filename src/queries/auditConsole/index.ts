import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { userTokens } from "../../platform/http/userTokens.ts";
import { TEMPLATES_DIR } from "../portal/index.ts";
import { finishSignIn, startSignIn } from "../portal/oidc.ts";
import * as web from "../portal/web.ts";

/**
 * The auditor's console, `/audit` (docs/portal.md): for an API key with LeasesRead or a user
 * whose roles grant it (an `auditor`, an owner, a manager). Find a lease, read its history as a
 * timeline, replay it `as_of` a moment, and verify its hash-chained export in the browser
 * (static/audit.js, as `pms audit verify` does). Every answer is the API's, called with the
 * auditor's own credential.
 */

const BASE = "/audit";
const SESSION = "pms_audit";
const here = dirname(fileURLToPath(import.meta.url));
const KEY = /^pms_[A-Za-z0-9_-]{10,200}$/;

interface AuditSession {
  tenant_name: string;
  credential: string;
  who: string;
  exp: number;
}

const leaseParams = z.strictObject({ lease_id: z.uuid() });
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** `user:abc…` or a key id: short enough to read, long enough to tell apart. */
const actorText = (actor: unknown) =>
  typeof actor !== "string"
    ? "système"
    : actor.startsWith("user:")
      ? `utilisateur ${actor.slice(5, 29)}`
      : `clé ${actor.slice(0, 8)}`;

/** What an event changed: its data's fields, one level of nesting spelled out (`terms.rent_amount`). */
function changesOf(data: unknown): { field: string; value: string }[] {
  if (!data || typeof data !== "object") return [];
  const out: { field: string; value: string }[] = [];
  const add = (field: string, v: unknown) => {
    if (v === null || v === undefined) return;
    out.push({ field, value: (typeof v === "string" ? v : JSON.stringify(v)).slice(0, 200) });
  };
  for (const [field, v] of Object.entries(data as Record<string, unknown>)) {
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const [inner, w] of Object.entries(v as Record<string, unknown>)) add(`${field}.${inner}`, w);
    else add(field, v);
  }
  return out.slice(0, 40);
}

/** Paris's offset from UTC at an instant, in ms (one or two hours). */
function parisOffset(at: Date): number {
  const wall = (zone: string) => new Date(at.toLocaleString("en-US", { timeZone: zone })).getTime();
  return wall("Europe/Paris") - wall("UTC");
}

/** A typed instant; without an offset it is Paris wall time (what a datetime-local field sends). */
function instantOf(value: string): string | null {
  const offset = /([zZ]|[+-]\d{2}:\d{2})$/.test(value);
  if (!INSTANT.test(value) || Number.isNaN(Date.parse(offset ? value : `${value}Z`))) return null;
  if (offset) return new Date(value).toISOString();
  const asUtc = new Date(`${value}Z`);
  return new Date(asUtc.getTime() - parisOffset(asUtc)).toISOString();
}

/** The instant as a datetime-local value in Paris time. */
const parisLocal = (iso: string) => {
  const at = new Date(iso);
  return new Date(at.getTime() + parisOffset(at)).toISOString().slice(0, 19);
};

export async function auditConsolePages(app: FastifyInstance): Promise<void> {
  const { sql, config } = app.platform;
  const render = web.views(join(here, "templates"), TEMPLATES_DIR);
  const seal = web.sealer(config.PMS_SESSION_SECRET);
  const tokens = userTokens(sql, { jwksCooldownMs: config.PMS_JWKS_COOLDOWN_MS });
  await web.pagePlugins(app, render, BASE);
  web.staticFile(
    app,
    `${BASE}/static/audit.js`,
    join(here, "static", "audit.js"),
    "text/javascript; charset=utf-8",
  );

  const page = { config: { access: "public" as const }, schema: { hide: true } };
  const form = { ...page, preHandler: app.csrfProtection };
  const show = (
    reply: FastifyReply,
    name: string,
    session: AuditSession | null,
    view: Record<string, unknown>,
    status = 200,
  ) =>
    web.html(
      reply,
      render(name, {
        base: BASE,
        console: "Console d'audit",
        script: `${BASE}/static/audit.js`,
        csrf: reply.generateCsrf(),
        session: session ? { tenant_name: session.tenant_name } : null,
        ...view,
      }),
      status,
    );
  const { signedIn, required: requireSession } = web.sessions<AuditSession>(
    seal,
    SESSION,
    "Votre session a expiré : reconnectez-vous depuis l'accueil de la console.",
  );
  const expect = web.answerOf;
  /** The credential opens the leases' reads, else no session (403: it lacks LeasesRead). */
  const open = async (request: FastifyRequest, reply: FastifyReply, session: AuditSession) => {
    const probe = await web.callApi(request, session.credential, "GET", "/api/leases?limit=1");
    if (probe.status !== 200)
      throw new web.PageError(
        probe.status === 403 ? 403 : 401,
        probe.status === 403
          ? "Ce compte ne peut pas lire les baux (permission LeasesRead) : la console lui est fermée."
          : "Cette clé n'est pas reconnue ou a été révoquée.",
      );
    reply.setCookie(SESSION, await seal.seal({ ...session }), web.cookieOptions(BASE));
    return reply.redirect(BASE, 303);
  };
  const exp = () => Math.floor(Date.now() / 1000) + 8 * 3600;

  app.get(BASE, page, async (request, reply) => {
    const session = await signedIn(request);
    const query = request.query as Record<string, unknown>;
    if (!session)
      return show(reply, "audit-home", null, {
        title: "Console d'audit",
        espace: String(query.espace ?? "")
          .trim()
          .slice(0, 200),
      });
    const status = z
      .enum(["DRAFT", "PENDING_SIGNATURE", "ACTIVE", "NOTICE", "FINALISATION", "TERMINATED", "EXPIRED"])
      .safeParse(query.status);
    const id = z.uuid().safeParse(
      String(query.id ?? "")
        .trim()
        .toLowerCase(),
    );
    if (id.success) return reply.redirect(`${BASE}/leases/${id.data}`, 303);
    const leases = expect(
      await web.callApi(
        request,
        session.credential,
        "GET",
        `/api/leases?limit=50${status.success ? `&status=${status.data}` : ""}`,
      ),
    ) as Record<string, unknown>[];
    return show(reply, "audit-leases", session, {
      title: "Trouver un bail",
      leases,
      status: status.success ? status.data : "",
      badId: query.id !== undefined && String(query.id).trim() !== "" && !id.success,
    });
  });

  app.post(`${BASE}/key`, form, async (request, reply) => {
    const key = String((request.body as Record<string, unknown> | undefined)?.key ?? "").trim();
    if (!KEY.test(key)) throw new web.PageError(400, "Une clé d'API commence par « pms_ ».");
    return open(request, reply, {
      tenant_name: `clé ${key.slice(0, 8)}…`,
      credential: key,
      who: "key",
      exp: exp(),
    });
  });

  app.get(`${BASE}/login`, page, async (request, reply) => {
    const espace = String((request.query as Record<string, unknown>).espace ?? "")
      .trim()
      .slice(0, 200);
    return startSignIn(request, reply, { sql, sealer: seal, base: BASE, scope: "openid" }, espace);
  });

  app.get(`${BASE}/callback`, page, async (request, reply) => {
    const done = await finishSignIn(request, reply, { sql, sealer: seal, base: BASE, tokens });
    return open(request, reply, {
      tenant_name: done.tenant_name,
      credential: done.credential,
      who: done.identity.subject,
      exp: exp(),
    });
  });

  app.post(`${BASE}/logout`, form, async (_request, reply) => {
    reply.clearCookie(SESSION, { path: BASE });
    return show(reply, "audit-home", null, { title: "Vous êtes déconnecté", signedOut: true, espace: "" });
  });

  app.get(`${BASE}/leases/:lease_id`, page, async (request, reply) => {
    const session = await requireSession(request);
    const params = leaseParams.safeParse(request.params);
    if (!params.success) throw new web.PageError(404, "Cette page n'existe pas.");
    const { lease_id } = params.data;
    const query = request.query as Record<string, unknown>;
    const events = expect(
      await web.callApi(request, session.credential, "GET", `/api/leases/${lease_id}/history?limit=1000`),
    ) as {
      type: string;
      revision: number;
      occurred_at: string;
      actor_key_id: string | null;
      data: unknown;
    }[];
    const now = expect(await web.callApi(request, session.credential, "GET", `/api/leases/${lease_id}`));
    // The moment replayed: an event of the slider (its instant), or a typed instant.
    const step = Number(query.etape);
    const typed = typeof query.as_of === "string" && query.as_of !== "" ? instantOf(query.as_of) : null;
    const asOf =
      Number.isInteger(step) && step >= 0 && step < events.length ? events[step].occurred_at : typed;
    const replayed = asOf
      ? expect(
          await web.callApi(
            request,
            session.credential,
            "GET",
            `/api/leases/${lease_id}?as_of=${encodeURIComponent(asOf)}`,
          ),
        )
      : null;
    const shown = (lease: Record<string, unknown>) =>
      Object.entries(lease)
        .filter(([k]) => !["tenants", "amendments", "custom_fields"].includes(k))
        .map(([field, v]) => ({
          field,
          value: v === null ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v),
        }));
    const at = Number.isInteger(step) && step >= 0 && step < events.length ? step : events.length - 1;
    return show(reply, "audit-lease", session, {
      title: "Historique du bail",
      lease_id,
      status: now.status,
      events: events.map((e, i) => ({
        ...e,
        index: i,
        when: web.frenchDateTime(e.occurred_at),
        who: actorText(e.actor_key_id),
        changes: changesOf(e.data),
      })),
      last: Math.max(events.length - 1, 0),
      at,
      asOf,
      asOfText: asOf ? web.frenchDateTime(asOf) : null,
      asOfLocal: asOf ? parisLocal(asOf) : "",
      replayed: replayed ? shown(replayed) : null,
      badAsOf: typeof query.as_of === "string" && query.as_of !== "" && !typed,
    });
  });

  app.get(`${BASE}/leases/:lease_id/history.ndjson`, page, async (request, reply) => {
    const session = await requireSession(request);
    const params = leaseParams.safeParse(request.params);
    if (!params.success) throw new web.PageError(404, "Cette page n'existe pas.");
    const answer = await web.callApi(
      request,
      session.credential,
      "GET",
      `/api/leases/${params.data.lease_id}/history.ndjson`,
    );
    if (answer.status !== 200) expect(answer);
    reply.header("content-disposition", `attachment; filename="historique-${params.data.lease_id}.ndjson"`);
    return web.sendFileAnswer(reply, answer);
  });
}
