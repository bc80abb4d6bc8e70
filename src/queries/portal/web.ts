import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Handlebars from "handlebars";
import { EncryptJWT, jwtDecrypt } from "jose";
import { ApiError } from "../../platform/errors.ts";

/**
 * What the two pages served by the service share (docs/portal.md): sealed session cookies, CSRF
 * on every form, a strict Content-Security-Policy, handlebars views in French, and the API itself
 * called in-process with the signed-in person's own credential, so that a page can show or do
 * nothing the API would refuse that credential (the same tenancy and scope checks, no second copy).
 */

/** No inline script or style, nothing from elsewhere; forms post here only. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SESSION_TTL_S = 8 * 3600;

/** A sealed value (JWE, dir + A256GCM): the browser holds it and can neither read nor change it. */
export interface Sealer {
  seal(value: Record<string, unknown>, ttlSeconds?: number): Promise<string>;
  open<T>(text: string | undefined): Promise<T | null>;
}

export function sealer(secret: string | undefined): Sealer {
  // Unset: a random key per process (sessions end with it; set the secret when several instances run).
  const key = secret ? createHash("sha256").update(secret).digest() : randomBytes(32);
  return {
    seal: (value, ttlSeconds = SESSION_TTL_S) =>
      new EncryptJWT(value)
        .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .encrypt(key),
    async open<T>(text: string | undefined) {
      if (!text) return null;
      try {
        return (await jwtDecrypt(text, key)).payload as T;
      } catch {
        return null;
      }
    },
  };
}

/** HTTP-only, Secure, SameSite=Lax (the provider's redirect back is a top-level navigation). */
export const cookieOptions = (path: string, maxAge = SESSION_TTL_S) =>
  ({ path, httpOnly: true, secure: true, sameSite: "lax", maxAge }) as const;

/** Handlebars views (the first folder holding a name wins): `layout.hbs` around each page. */
export function views(...dirs: string[]) {
  const hb = Handlebars.create();
  hb.registerHelper("date", (v: unknown) => frenchDate(v));
  hb.registerHelper("datetime", (v: unknown) => frenchDateTime(v));
  hb.registerHelper("euro", (v: unknown) => euro(v));
  hb.registerHelper("eq", (a: unknown, b: unknown) => a === b);
  const compile = (name: string) => {
    const file = dirs.map((dir) => join(dir, `${name}.hbs`)).find((f) => existsSync(f));
    if (!file) throw new Error(`No view ${name}`);
    return hb.compile(readFileSync(file, "utf8"));
  };
  const cache = new Map<string, HandlebarsTemplateDelegate>();
  const template = (name: string) => {
    const known = cache.get(name);
    if (known) return known;
    const made = compile(name);
    cache.set(name, made);
    return made;
  };
  return (name: string, view: Record<string, unknown>) =>
    template("layout")({ ...view, body: template(name)(view) });
}

const MONTHS = [
  "janvier",
  "février",
  "mars",
  "avril",
  "mai",
  "juin",
  "juillet",
  "août",
  "septembre",
  "octobre",
  "novembre",
  "décembre",
];

/** `1er décembre 2026`; a dash for nothing. */
export function frenchDate(value: unknown): string {
  const m = typeof value === "string" ? /^(\d{4})-(\d{2})-(\d{2})/.exec(value) : null;
  if (!m) return "—";
  const day = Number(m[3]);
  return `${day === 1 ? "1er" : day} ${MONTHS[Number(m[2]) - 1]} ${m[1]}`;
}

/** `1er décembre 2026 à 14 h 05` in Paris time. */
export function frenchDateTime(value: unknown): string {
  if (typeof value !== "string" || Number.isNaN(Date.parse(value))) return "—";
  const parts = new Intl.DateTimeFormat("fr-FR", {
    timeZone: "Europe/Paris",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(value));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${frenchDate(`${part("year")}-${part("month")}-${part("day")}`)} à ${part("hour")} h ${part("minute")}`;
}

const EURO = new Intl.NumberFormat("fr-FR", { style: "currency", currency: "EUR" });
/** `1 043,31 €` (French spacing kept: a narrow no-break space between thousands). */
export const euro = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) ? EURO.format(value) : "—";

/** The API's answer to an in-process call. */
export interface ApiAnswer {
  status: number;
  json: () => any;
  raw: Buffer;
  headers: Record<string, unknown>;
}

/**
 * Calls the service's own API with `credential` (a user token or an API key) as
 * `Authorization: Bearer`, from the browser's address and user agent (the signature's evidence
 * records them), under the page request's id.
 */
export async function callApi(
  request: FastifyRequest,
  credential: string,
  method: "GET" | "POST",
  url: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const agent = request.headers["user-agent"];
  const res = await request.server.inject({
    method,
    url,
    remoteAddress: request.ip,
    headers: {
      authorization: `Bearer ${credential}`,
      "x-request-id": request.id,
      ...(typeof agent === "string" ? { "user-agent": agent } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, json: () => res.json(), raw: res.rawPayload, headers: res.headers };
}

/** The API's refusal in French for a person; its own message follows as detail. */
export function refusalText(answer: ApiAnswer): string {
  const message = (() => {
    try {
      return String(answer.json().message ?? "");
    } catch {
      return "";
    }
  })();
  const head: Record<number, string> = {
    400: "La saisie n'est pas valable.",
    401: "Votre session a expiré : reconnectez-vous.",
    403: "Vous n'avez pas le droit de faire cela.",
    404: "Introuvable.",
    409: "Ce n'est pas possible dans l'état actuel.",
    422: "Refusé par les règles applicables.",
    429: "Trop de demandes : réessayez dans une minute.",
  };
  const text = head[answer.status] ?? "Le service est momentanément indisponible : réessayez.";
  return message ? `${text} (${message})` : text;
}

/** The API's answer, or a page saying why not (its status kept: a 404 stays a 404). */
export function answerOf(answer: ApiAnswer) {
  if (answer.status >= 400) throw new PageError(answer.status, refusalText(answer));
  return answer.json();
}

/** A console's session cookie: who is signed in, or null; `required` answers 401 without one. */
export function sessions<T extends { exp: number }>(seal: Sealer, cookie: string, expired: string) {
  const signedIn = async (request: FastifyRequest) => {
    const session = await seal.open<T>(request.cookies[cookie]);
    return session && session.exp * 1000 > Date.now() ? session : null;
  };
  return {
    signedIn,
    async required(request: FastifyRequest) {
      const session = await signedIn(request);
      if (!session) throw new PageError(401, expired);
      return session;
    },
  };
}

/** Sends a file the API answered, with its type and name. */
export function sendFileAnswer(reply: FastifyReply, answer: ApiAnswer) {
  for (const name of ["content-type", "content-disposition"])
    if (answer.headers[name]) reply.header(name, String(answer.headers[name]));
  return reply.status(200).send(answer.raw);
}

/** A page error shown as a page, in French. */
export class PageError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The pages' plugins on an encapsulated instance: cookies, form bodies, CSRF (a secret in an
 * HTTP-only cookie, a token in each form), security headers on every answer, errors as pages.
 */
export async function pagePlugins(
  app: FastifyInstance,
  render: (name: string, view: Record<string, unknown>) => string,
  base: string,
): Promise<void> {
  await app.register(fastifyCookie);
  // Forms only: a page takes no JSON (415), the API does.
  app.removeContentTypeParser("application/json");
  await app.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
  await app.register(fastifyCsrf, {
    cookieKey: `${base.slice(1)}_csrf`,
    cookieOpts: cookieOptions(base),
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("content-security-policy", CONTENT_SECURITY_POLICY);
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    reply.header("x-frame-options", "DENY");
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    return payload;
  });
  app.setErrorHandler((error: FastifyError | PageError, _request, reply) => {
    const csrf =
      (error as FastifyError).code === "FST_CSRF_INVALID_TOKEN" ||
      (error as FastifyError).code === "FST_CSRF_MISSING_SECRET";
    const status =
      error instanceof PageError || error instanceof ApiError
        ? error.status
        : csrf
          ? 403
          : ((error as FastifyError).statusCode ?? 500);
    const message =
      error instanceof PageError
        ? error.message
        : csrf
          ? "Ce formulaire a expiré ou ne vient pas de cette page : rechargez la page et recommencez."
          : status < 500
            ? "Cette demande n'est pas valable."
            : "Le service est momentanément indisponible : réessayez.";
    if (status >= 500) reply.log.error({ err: error }, "page failed");
    return reply
      .status(status >= 400 && status < 600 ? status : 500)
      .type("text/html; charset=utf-8")
      .send(render("error", { title: "Erreur", message, base }));
  });
}

/** A static file of the pages (the progressive-enhancement script, the style sheet). */
export function staticFile(app: FastifyInstance, url: string, file: string, type: string) {
  const bytes = readFileSync(file);
  app.get(url, { config: { access: "public" }, schema: { hide: true } }, async (_request, reply) =>
    reply.type(type).header("cache-control", "public, max-age=300").send(bytes),
  );
}

/** An HTML page answer. */
export const html = (reply: FastifyReply, body: string, status = 200) =>
  reply.status(status).type("text/html; charset=utf-8").send(body);
