import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../errors.ts";
import {
  deleteIdentityProvider,
  putIdentityProvider,
  readIdentityProvider,
} from "../tenants/identityProviders.ts";
import { findTenant } from "../tenants/tenants.ts";
import { answers, errorResponses, noContent, timestamp } from "./responses.ts";

/**
 * The platform admin registers each tenant's OpenID Connect provider (docs/security.md,
 * "User tokens"); its tokens then act for that tenant.
 */

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** https, or http to this machine only (a provider in development, the tests' JWKS server). */
const fetchableUrl = z
  .url()
  .max(2000)
  .refine((value) => {
    // Refinements run after a failed `url()` too: an unparsable value must not throw here.
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname));
  }, "Must be an https URL (http only to localhost)");

const claimName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "Must be a claim name without spaces");

const providerInput = z
  .strictObject({
    issuer: z
      .url()
      .max(2000)
      .describe("The `iss` of the provider's tokens, exactly as they carry it; one tenant per issuer"),
    jwks_uri: fetchableUrl.describe("Where the provider publishes its signing keys (JWKS)"),
    audience: z.string().trim().min(1).max(500).describe("The `aud` the tokens must carry"),
    roles_claim: claimName
      .optional()
      .describe(
        "Claim holding the roles (array of owner, manager, auditor, lessee); default `roles`; a dotted path reaches a nested claim",
      ),
    scope_claim: claimName
      .optional()
      .describe("Claim holding the scopes (space-separated string or array); default `scope`"),
  })
  .meta({ id: "IdentityProviderRegistration", description: "A tenant's OpenID Connect provider" });

const providerBody = z
  .strictObject({
    tenant_id: z.guid(),
    issuer: z.string(),
    jwks_uri: z.string(),
    audience: z.string(),
    roles_claim: z.string(),
    scope_claim: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "IdentityProvider", description: "A tenant's OpenID Connect provider, as registered" });

const params = z.object({ tenant_id: z.uuid() });

export async function identityProviderRoutes(app: FastifyInstance) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  const tags = ["Admin"];
  const config = { access: "admin" as const };

  const requireTenant = async (id: string) => {
    const tenant = await findTenant(sql, id);
    if (!tenant || tenant.id !== id) throw notFound("Tenant", id);
  };

  api.put(
    "/api/admin/tenants/:tenant_id/identity-provider",
    {
      schema: {
        tags,
        summary: "Register or replace the tenant's OpenID Connect provider",
        params,
        body: providerInput,
        response: answers(providerBody),
      },
      config,
    },
    async (request) => {
      const { tenant_id } = request.params;
      await requireTenant(tenant_id);
      return (await putIdentityProvider(sql, tenant_id, request.body)).provider;
    },
  );

  api.get(
    "/api/admin/tenants/:tenant_id/identity-provider",
    {
      schema: {
        tags,
        summary: "The tenant's OpenID Connect provider",
        params,
        response: answers(providerBody),
      },
      config,
    },
    async (request) => {
      const { tenant_id } = request.params;
      await requireTenant(tenant_id);
      const provider = await readIdentityProvider(sql, tenant_id);
      if (!provider) throw notFound("Identity provider of tenant", tenant_id);
      return provider;
    },
  );

  api.delete(
    "/api/admin/tenants/:tenant_id/identity-provider",
    {
      schema: {
        tags,
        summary: "Remove the tenant's provider: its tokens are refused within 1 s",
        params,
        response: { 204: noContent, ...errorResponses },
      },
      config,
    },
    async (request, reply) => {
      const { tenant_id } = request.params;
      await requireTenant(tenant_id);
      if (!(await deleteIdentityProvider(sql, tenant_id)))
        throw notFound("Identity provider of tenant", tenant_id);
      return reply.status(204).send();
    },
  );
}
