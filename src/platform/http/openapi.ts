import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

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
        securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "pms_… API key" } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs", uiConfig: { docExpansion: "list" } });
  app.get("/api/openapi.json", { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
});
