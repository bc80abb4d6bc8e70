import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import { MEDIA_CONTENT_TYPES } from "../blobs/uploads.ts";
import type { RouteAccess } from "../platform.ts";
import { PERMISSIONS } from "./auth.ts";
import {
  ERRORS,
  errorResponse,
  HEADERS,
  type Json,
  PARAMETERS,
  RANGES,
  ref,
  STATUS_TEXTS,
} from "./openapiComponents.ts";
import { isLesseeScope } from "./userTokens.ts";

/**
 * OpenAPI 3.1 generated from the routes' zod schemas; browsable at /api/docs. What every route
 * shares is written here once, so that a route declares only what is its own (docs/conventions.md,
 * "The API description"):
 * - a zod schema with `.meta({ id: "Estate" })` is one named component, `$ref`erenced wherever used;
 * - `operationId` from method and path (`getEstatesById`), unless the route gives one;
 * - a summary where the route has none, a description saying what the operation needs;
 * - response headers: ETag on a resource, X-Total-Count and Link on a page, Location on 201/202,
 *   Content-Disposition on a file; the request headers If-Match and Idempotency-Key;
 * - the errors of docs/architecture.md §4 as responses sharing one `Error` schema;
 * - read-only fields (`z.never()` in a request body) shown with their type and `readOnly`;
 * - an upload's multipart body (`uploadBody`), a wildcard path's parameter (`wildcardParam`).
 */

/** The security requirement of an operation from its declared access (docs/security.md). */
function securityOf(access: RouteAccess | undefined) {
  switch (access) {
    case "public":
      return [];
    case "admin":
      return [{ adminKey: [] }];
    case "worker":
      return [{ workerKey: [] }];
    case "owner":
      return [{ userToken: [] }];
    default:
      // A lessee scope: a lessee's user token only; a permission: a key, or a staff user token.
      return isLesseeScope(access) ? [{ userToken: [access] }] : [{ apiKey: [] }, { userToken: [] }];
  }
}

/**
 * Spread into the schema of a route that reads a multipart body itself (uploads): the parts it
 * takes besides the `file` (PDF, JPEG, PNG, GIF or WebP), for the document only: fastify does not
 * validate a streamed body.
 */
export const uploadBody = (parts: z.ZodObject = z.strictObject({})) => ({ "x-upload": parts });

/**
 * Spread into the schema of a route whose path ends in `*` (a value that may hold a slash, like
 * `company/other`): the document shows it as the parameter `{name}` (sent percent-encoded).
 */
export const wildcardParam = (name: string, schema: z.ZodType) => ({ "x-wildcard": { name, schema } });

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** `GET /api/estates/{id}` -> `getEstatesById`; `{*}`-free, `-` and `_` folded into camel case. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((segment) => segment && segment !== "api")
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? ["by", ...param[1].split(/[-_]/)] : segment.split(/[-_.]/);
    })
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1));
  return method.toLowerCase() + words.join("");
}

const VERBS: Record<string, string> = {
  get: "Read",
  post: "Submit",
  put: "Replace",
  patch: "Change",
  delete: "Delete",
};

/** A summary for an operation whose route gives none: `Read energy-diagnoses/{id}`. */
const defaultSummary = (method: string, path: string) => `${VERBS[method]} ${path.replace(/^\/api\//, "")}`;

/** Per-route: zod to JSON Schema (refs to named components), access, uploads, wildcards. */
function transformRoute(input: Parameters<typeof jsonSchemaTransform>[0]) {
  const { "x-upload": upload, "x-wildcard": wildcard, ...schema } = (input.schema ?? {}) as Json;
  const out = jsonSchemaTransform({ ...input, schema } as typeof input);
  if (out.schema?.hide) return out;
  const access = input.route.config?.access;
  const extra: Json = { "x-permission": access, security: securityOf(access) };
  let url = out.url;
  if (wildcard) {
    url = url.replace(/\*$/, `:${wildcard.name}`);
    extra.params = {
      type: "object",
      properties: { [wildcard.name]: z.toJSONSchema(wildcard.schema, { target: "draft-2020-12" }) },
      required: [wildcard.name],
    };
  }
  if (upload) extra["x-upload"] = z.toJSONSchema(upload, { target: "draft-2020-12", io: "input" });
  // A JSON answer also given as PDF on `Accept: application/pdf` (e.g. an arrears statement).
  if (input.route.config?.pdfAlternative) extra["x-pdf-alternative"] = true;
  return { ...out, url, schema: { ...out.schema, ...extra } };
}

/** Whole document: components, then what every operation shares. */
function transformDocument(input: Parameters<typeof jsonSchemaTransformObject>[0]) {
  const doc = jsonSchemaTransformObject(input) as Json;
  const components = doc.components;
  components.headers = HEADERS;
  components.parameters = PARAMETERS;
  components.responses = Object.fromEntries(
    [...Object.values(ERRORS), ...Object.values(RANGES)].map((e) => [e.name, errorResponse(e)]),
  );
  const resolve = (schema: Json | undefined): Json | undefined => {
    const name = /^#\/components\/schemas\/(.+)$/.exec(schema?.$ref ?? "")?.[1];
    return name ? components.schemas[name] : schema;
  };
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= operationIdOf(method, path);
      if (ids.has(op.operationId)) throw new Error(`Duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      op.summary ??= defaultSummary(method, path);
      describeOperation(op, method, path, resolve);
    }
  }
  pruneUnused(doc);
  return doc;
}

function describeOperation(
  op: Json,
  method: string,
  path: string,
  resolve: (schema: Json | undefined) => Json | undefined,
) {
  const tenant = op.security?.some((s: Json) => "apiKey" in s || "userToken" in s);
  const secured = op.security?.length > 0;
  const permission = op["x-permission"];
  const needs =
    permission === "public"
      ? "Public: no key."
      : permission === "admin"
        ? "Needs the administrator key (PMS_ADMIN_API_KEY)."
        : permission === "worker"
          ? "Needs a worker key (X-API-Key)."
          : permission === "owner"
            ? "Needs an owner's user token (role `owner`); an API key or another role is refused (403)."
            : isLesseeScope(permission)
              ? `Needs a lessee's user token with the ${permission} scope.`
              : `Needs a tenant API key with the ${permission} permission, or an owner's or manager's user token whose role grants it (docs/security.md).`;
  const notes = [op.description, needs].filter(Boolean);
  const responses: Json = op.responses ?? {};
  if (op["x-pdf-alternative"]) {
    delete op["x-pdf-alternative"];
    const ok = responses["200"];
    if (ok?.content) ok.content["application/pdf"] = { schema: { type: "string", format: "binary" } };
    notes.push("Answers the same as PDF when the request's `Accept` prefers `application/pdf`.");
  }
  const success = (status: string) => responses[status]?.content?.["application/json"]?.schema;

  // Uploads: the multipart parts the route reads.
  const upload = op["x-upload"];
  delete op["x-upload"];
  if (upload) {
    const { $schema: _, ...parts } = upload;
    op.requestBody = {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            ...parts,
            properties: { ...parts.properties, file: { type: "string", format: "binary" } },
            required: [...new Set([...(parts.required ?? []), "file"])],
          },
          encoding: { file: { contentType: MEDIA_CONTENT_TYPES.join(", ") } },
        },
      },
    };
  }

  // Read-only fields a request body refuses: shown with the type the answer gives them.
  const body = resolve(op.requestBody?.content?.["application/json"]?.schema);
  const answer = resolve(success("200") ?? success("201"));
  if (body?.properties) {
    for (const [name, field] of Object.entries(body.properties as Record<string, Json>)) {
      if (!field.not || Object.keys(field.not).length > 0) continue;
      const shown = answer?.properties?.[name] ?? {};
      body.properties[name] = {
        ...shown,
        readOnly: true,
        description: `Read-only: kept by the service; sending it is a 400.${shown.description ? ` ${shown.description}` : ""}`,
      };
    }
  }

  for (const [status, response] of Object.entries(responses)) {
    if (response.description === "Default Response") response.description = STATUS_TEXTS[status] ?? "OK";
    const headers: Json = {};
    const json = response.content?.["application/json"]?.schema;
    const resource = resolve(json);
    if (status === "200" || status === "201") {
      if (json?.type === "array" && op.parameters?.some((p: Json) => p.name === "page")) {
        headers["X-Total-Count"] = ref("headers", "XTotalCount");
        headers.Link = ref("headers", "Link");
        notes.push("Paged: `page` (from 1) and `limit` (1..1000, default 100).");
      } else if (json?.$ref && resource?.properties?.id) headers.ETag = ref("headers", "ETag");
    }
    if (status === "201" || status === "202") headers.Location = ref("headers", "Location");
    if (response.content && !response.content["application/json"])
      headers["Content-Disposition"] = ref("headers", "ContentDisposition");
    if (Object.keys(headers).length > 0) response.headers = { ...response.headers, ...headers };
  }
  if (responses["202"])
    notes.push(
      "Answers 202 `Accepted` when the read models lag past the read-your-writes bound: the write is kept, GET its Location later.",
    );

  // Errors: the statuses this kind of operation can meet, then the ranges for the rest.
  const hasInput = (op.parameters?.length ?? 0) > 0 || op.requestBody;
  const writes = method !== "get";
  const statuses = [
    hasInput && "400",
    secured && "401",
    secured && "403",
    path.includes("{") && "404",
    writes && tenant && "409",
    (method === "put" || method === "delete") && tenant && "412",
    op.requestBody && "413",
    op.requestBody && "415",
    tenant && "429",
    "503",
  ].filter((s): s is string => Boolean(s));
  for (const status of statuses) responses[status] ??= ref("responses", ERRORS[status].name);
  for (const [range, e] of Object.entries(RANGES)) responses[range] = ref("responses", e.name);
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));

  // Request headers every such operation honours.
  const parameters: Json[] = op.parameters ?? [];
  if ((method === "put" || method === "delete") && tenant) parameters.push(ref("parameters", "IfMatch"));
  if (method === "post" && tenant) parameters.push(ref("parameters", "IdempotencyKey"));
  if (parameters.length > 0) op.parameters = parameters;
  op.description = notes.join("\n\n");
}

/** Components nothing refers to (zod registers each named schema as input and output). */
function pruneUnused(doc: Json) {
  const schemas: Json = doc.components.schemas ?? {};
  const used = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        const name = /^#\/components\/schemas\/(.+)$/.exec(value)?.[1];
        if (name && !used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit({ ...doc, components: { ...doc.components, schemas: {} } });
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

export const openapi = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Property management service",
        description:
          "French rental real estate: places, estates, lessees, leases, energy diagnoses (DPE). Conventions (errors, pages, ETags, 202) in docs/architecture.md §4.",
        version: "0.1.0",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/", description: "The service serving this document" }],
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            description: `pms_… tenant API key holding some of: ${PERMISSIONS.join(", ")} (docs/security.md)`,
          },
          adminKey: { type: "http", scheme: "bearer", description: "PMS_ADMIN_API_KEY" },
          workerKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "worker key" },
          userToken: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "JWT",
            description:
              "A user token from the tenant's OpenID Connect provider: roles owner, manager, auditor, lessee; lessee scopes lessee:leases:read|sign|download|write (docs/security.md)",
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: transformRoute,
    transformObject: transformDocument,
  });
  // The browsable docs are public: a browser sends no key.
  await app.register(async (docs) => {
    docs.addHook("onRoute", (route) => {
      route.config = { ...route.config, access: "public" };
    });
    await docs.register(swaggerUi, { routePrefix: "/api/docs", uiConfig: { docExpansion: "list" } });
  });
  app.get("/api/openapi.json", { config: { access: "public" }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
});
