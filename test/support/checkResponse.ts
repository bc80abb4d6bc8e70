import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";

/**
 * Checks real answers against /api/openapi.json: the operation of the request (method and path
 * template), the response declared for its status (exact, then 4XX-style range, then default),
 * and the body against that response's JSON schema. Every `t.request` of the API tests goes
 * through it, so the document is tested by the whole suite, not by a sample.
 */

interface Response {
  $ref?: string;
  content?: Record<string, { schema?: object }>;
}
interface Operation {
  responses?: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, Response> };
}

const DOCUMENT_ID = "https://pms.invalid/openapi.json";
/** A JSON pointer segment (RFC 6901), URI-encoded for a `$ref`. */
const pointer = (...segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");
interface Template {
  path: string;
  regex: RegExp;
  params: number;
}

export type ResponseChecker = (method: string, url: string, res: LightMyRequestResponse) => void;

/** Reads the app's document once; the checker it returns throws on a response the document does not describe. */
export async function responseCheckerOf(app: FastifyInstance): Promise<ResponseChecker> {
  const res = await app.inject({ method: "GET", url: "/api/openapi.json" });
  const doc = res.json() as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // The whole document, so that a body schema's `$ref`s to named components resolve in it.
  ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  const responseOf = (response: Response | undefined) => {
    const name = /^#\/components\/responses\/(.+)$/.exec(response?.$ref ?? "")?.[1];
    return name ? doc.components?.responses?.[name] : response;
  };
  const templates = Object.keys(doc.paths)
    .map((path) => templateOf(path))
    // A literal segment wins over a parameter (/api/lessees/bulk before /api/lessees/{id}).
    .sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

  return (method, url, res) => {
    const path = url.split("?")[0];
    const candidates = templates.filter((t) => t.regex.test(path));
    const template = candidates.find((t) => doc.paths[t.path][method.toLowerCase()]);
    // No operation: an unknown route (our 404) or a hidden one (the docs themselves).
    if (!template) return;
    const operation = doc.paths[template.path][method.toLowerCase()];
    // An operation declaring no answers at all is reported once, by test/platform/openapi.test.ts.
    if (!operation.responses) return;
    const where = `${method} ${template.path} answered ${res.statusCode}`;
    const status = String(res.statusCode);
    const responses = operation.responses;
    const key = [status, `${status[0]}XX`, "default"].find((k) => responses[k]);
    const declared = key ? responseOf(responses[key]) : undefined;
    if (!key || !declared) throw new Error(`${where}: status not in /api/openapi.json`);
    const schema = declared.content?.["application/json"]?.schema;
    if (!declared.content) {
      if (res.body !== "") throw new Error(`${where}: body where the document declares none`);
      return;
    }
    if (!schema) return; // a non-JSON answer (a file's bytes)
    // An alternative the document declares beside JSON (an arrears statement as PDF).
    const type = String(res.headers?.["content-type"] ?? "").split(";")[0];
    if (type !== "application/json" && declared.content[type]) return;
    const at = pointer("paths", template.path, method.toLowerCase(), "responses", key);
    let validate = compiled.get(at);
    if (!validate) {
      // The schema where it stands in the document (its `$ref`s resolve there).
      const ref = responses[key].$ref;
      const base = ref ? ref.slice(1) : `/${at}`;
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${base}/content/application~1json/schema` });
      compiled.set(at, validate);
    }
    if (!validate(JSON.parse(res.body))) {
      throw new Error(`${where}: body does not match the document: ${ajv.errorsText(validate.errors)}`);
    }
  };
}

function templateOf(path: string): Template {
  let params = 0;
  const pattern = path
    .split("/")
    .map((segment) => {
      if (segment === "*" || segment === "{*}") {
        params += 100;
        return ".*";
      }
      if (/^\{[^}]+\}$/.test(segment)) {
        params += 1;
        return "[^/]+";
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return { path, regex: new RegExp(`^${pattern}/?$`), params };
}
