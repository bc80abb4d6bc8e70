import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import type { RouteAccess } from "../platform.ts";

/** The security requirement of an operation from its declared access (docs/security.md). */
function securityOf(access: RouteAccess | undefined) {
  switch (access) {
    case "public":
      return [];
    case "admin":
      return [{ adminKey: [] }];
    case "worker":
      return [{ workerKey: [] }];
    default:
      return [{ apiKey: [] }];
  }
}

/** OpenAPI 3.1 generated from the routes' zod schemas; browsable at /api/docs. */
export const openapi = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Property management service",
        description: "French rental real estate: places, estates, lessees, leases, energy diagnoses (DPE).",
        version: "0.1.0",
      },
      components: {
        securitySchemes: {
          apiKey: { type: "http", scheme: "bearer", description: "pms_… tenant API key" },
          adminKey: { type: "http", scheme: "bearer", description: "PMS_ADMIN_API_KEY" },
          workerKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "worker key" },
        },
      },
      security: [{ apiKey: [] }],
    },
    // Each operation shows what it needs: `x-permission` (public, admin, worker or the tenant
    // permission) and the matching security requirement.
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      const access = input.route.config?.access;
      return {
        ...out,
        schema: { ...out.schema, "x-permission": access, security: securityOf(access) },
      };
    },
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
