import { createHash, randomUUID } from "node:crypto";
import Fastify, { type FastifyRequest } from "fastify";
import pg from "pg";
import { z } from "zod";
import { categoryRuleDetails, toLesseeData } from "../src/commands/lessees/schemas.ts";
import { LESSEE_FIELDS } from "../src/events/lessees.ts";
import { pageQuery, sendPage } from "../src/platform/http/pagination.ts";
import { toLesseeResponse } from "../src/queries/lessees.ts";
import { createLesseeSchema } from "../src/queries/lesseesSchemas.ts";

/**
 * The baseline: the lessee routes written the plain way — fastify, the same zod body schema,
 * one INSERT or SELECT on a table shaped like the read model, no events, no projections —
 * with an API-key check of the same cost as the service's (sha256, 1 s cache, one lookup).
 * Run as its own process by bench/run.ts: DATABASE_URL, HOST, PORT.
 */

const TABLE = "bench_baseline_lessees";
const COLUMNS = ["tenant_id", "id", ...LESSEE_FIELDS, "created_at", "updated_at", "revision"];
const SELECT = `id, ${LESSEE_FIELDS.join(", ")}, created_at, updated_at, revision`;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
pool.on("error", () => {});
// As in the service (src/platform/db.ts): numeric as number, date as YYYY-MM-DD.
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1082, (v) => v);

await pool.query(`
CREATE TABLE IF NOT EXISTS ${TABLE} (
  tenant_id uuid NOT NULL, id uuid PRIMARY KEY, category text NOT NULL, title text, first_name text,
  last_name text, legal_name text, birth_date date, birth_place text, email text NOT NULL, mobile_phone text,
  landline_phone text, address_street text, address_postal_code text, address_city text, address_country text,
  profession text, employer_name text, employer_phone text, monthly_income numeric, other_income numeric,
  bank_name text, iban text, bic text, additional_addresses jsonb, identity_documents jsonb,
  additional_contacts jsonb, custom_fields jsonb, auth_user_id text, created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL, revision bigint NOT NULL);
CREATE INDEX IF NOT EXISTS ${TABLE}_order ON ${TABLE} (tenant_id, created_at, id);
CREATE UNIQUE INDEX IF NOT EXISTS ${TABLE}_email ON ${TABLE} (tenant_id, lower(email));
CREATE INDEX IF NOT EXISTS ${TABLE}_category ON ${TABLE} (tenant_id, category, created_at, id);`);

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? "warn" } });

type Auth = { tenant_id: string; permissions: string[] } | null;
const keys = new Map<string, { auth: Auth; expires: number }>();
async function lookup(key: string): Promise<Auth> {
  const hash = createHash("sha256").update(key).digest("hex");
  const hit = keys.get(hash);
  if (hit && hit.expires > Date.now()) return hit.auth;
  const { rows } = await pool.query(
    "SELECT tenant_id, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
    [hash],
  );
  const auth = rows[0] ? { tenant_id: rows[0].tenant_id, permissions: rows[0].permissions } : null;
  keys.set(hash, { auth, expires: Date.now() + 1000 });
  return auth;
}

const tenants = new WeakMap<FastifyRequest, string>();
app.addHook("onRequest", async (request, reply) => {
  if (!request.url.startsWith("/api/lessees")) return;
  const key = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
  const auth = key ? await lookup(key) : null;
  if (!auth) return reply.status(401).send({ error: "Unauthorized", message: "Unknown API key" });
  const needed = request.method === "GET" ? "LesseeRead" : "LesseeWrite";
  if (!auth.permissions.includes(needed))
    return reply.status(403).send({ error: "Forbidden", message: needed });
  tenants.set(request, auth.tenant_id);
});
const tenantOf = (request: FastifyRequest) => tenants.get(request)!;

app.get("/api/health/ready", async () => ({ status: "ready" }));

app.post("/api/lessees", async (request, reply) => {
  const parsed = createLesseeSchema.safeParse(request.body);
  if (!parsed.success)
    return reply.status(400).send({ error: "ValidationError", message: "Invalid lessee data" });
  const data = toLesseeData(parsed.data);
  const details = categoryRuleDetails(data);
  if (details.length)
    return reply.status(400).send({ error: "ValidationError", message: "Invalid lessee data", details });
  const now = new Date().toISOString();
  const row: Record<string, unknown> = { ...data, tenant_id: tenantOf(request), id: randomUUID() };
  Object.assign(row, { created_at: now, updated_at: now, revision: 0 });
  try {
    const { rows } = await pool.query(
      `INSERT INTO ${TABLE} (${COLUMNS.join(", ")})
       SELECT ${COLUMNS.join(", ")} FROM jsonb_populate_record(NULL::${TABLE}, $1::jsonb) RETURNING ${SELECT}`,
      [JSON.stringify(row)],
    );
    return reply
      .status(201)
      .header("location", `/api/lessees/${row.id}`)
      .header("etag", `W/"0"`)
      .send(toLesseeResponse(rows[0]));
  } catch (error) {
    if ((error as { code?: string }).code === "23505") {
      return reply
        .status(409)
        .send({ error: "Conflict", message: "A lessee with this email already exists" });
    }
    throw error;
  }
});

const idParams = z.object({ id: z.guid() });
app.get("/api/lessees/:id", async (request, reply) => {
  const params = idParams.safeParse(request.params);
  if (!params.success) return reply.status(400).send({ error: "ValidationError", message: "Invalid id" });
  const tenant = tenantOf(request);
  const { rows } = await pool.query(`SELECT ${SELECT} FROM ${TABLE} WHERE tenant_id = $1 AND id = $2`, [
    tenant,
    params.data.id.toLowerCase(),
  ]);
  if (!rows[0]) return reply.status(404).send({ error: "NotFound", message: "Lessee not found" });
  return reply.header("etag", `W/"${rows[0].revision}"`).send(toLesseeResponse(rows[0]));
});

const listQuery = z.object(pageQuery);
app.get("/api/lessees", async (request, reply) => {
  const query = listQuery.safeParse(request.query);
  if (!query.success) return reply.status(400).send({ error: "ValidationError", message: "Invalid query" });
  const { page, limit } = query.data;
  const tenant = tenantOf(request);
  const [{ total }] = (
    await pool.query(`SELECT count(*)::int AS total FROM ${TABLE} WHERE tenant_id = $1`, [tenant])
  ).rows;
  const { rows } = await pool.query(
    `SELECT ${SELECT} FROM ${TABLE} WHERE tenant_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [tenant, limit, (page - 1) * limit],
  );
  return sendPage(request, reply, { items: rows.map(toLesseeResponse), total, page, limit });
});

await app.listen({ host: process.env.HOST ?? "127.0.0.1", port: Number(process.env.PORT ?? 3001) });
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}
