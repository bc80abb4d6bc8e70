import multipart from "@fastify/multipart";
import rateLimit from "@fastify/rate-limit";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from "fastify";
import { createLogger } from "../log.ts";
import type { Platform } from "../platform.ts";
import { adminRoutes } from "./adminRoutes.ts";
import { auth, hashKey, routeAccess } from "./auth.ts";
import { clientErrorHandler, errorHandler, frameworkErrors } from "./errorHandler.ts";
import { healthRoutes } from "./health.ts";
import { idempotency } from "./idempotency.ts";
import { identityProviderRoutes } from "./identityProviderRoutes.ts";
import { openapi } from "./openapi.ts";
import { safeText } from "./safeText.ts";
import { serializerCompiler } from "./serializeResponse.ts";
import { serveMetrics } from "./serveMetrics.ts";
import { staleReadModels } from "./staleReadModels.ts";
import { validatorCompiler } from "./validatorCompiler.ts";
import { workerRoutes } from "./workerRoutes.ts";

export const JSON_BODY_LIMIT = 1024 * 1024;
export const UPLOAD_LIMIT = 20 * 1024 * 1024;

/** The HTTP side: cross-cutting plugins first, then every area's routes. */
export async function buildApp(
  platform: Platform,
  areaRoutes: FastifyPluginAsync[],
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(platform.config.LOG_LEVEL === "silent"
      ? { logger: false }
      : { loggerInstance: createLogger(platform.config) as FastifyBaseLogger }),
    bodyLimit: JSON_BODY_LIMIT,
    // The request id becomes the events' correlation id; a caller may pass its own.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(given)
        ? given
        : crypto.randomUUID();
    },
    routerOptions: { maxParamLength: 500 },
    forceCloseConnections: true,
    // Router and HTTP-parser refusals in the docs/design.md §4 shape too (docs/security.md).
    frameworkErrors,
    clientErrorHandler,
  });
  app.decorate("platform", platform);
  // JSON (and multipart for uploads) only: fastify's default text/plain parser would hand a
  // route a string body (a 400) where docs/architecture.md §4 says a wrong content type is a 415.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(validatorCompiler);
  // Answers leave through the route's zod response schema: what /api/openapi.json promises is
  // what is sent (docs/decisions.md, "Responses in the contract").
  app.setSerializerCompiler(serializerCompiler);
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("x-request-id", request.id);
    done(null, payload);
  });

  // First, so that it sees every route, the docs' included (deny by default, docs/security.md).
  await app.register(routeAccess);
  await app.register(errorHandler);
  await app.register(serveMetrics);
  await app.register(openapi);
  await app.register(multipart, {
    limits: { fileSize: UPLOAD_LIMIT, files: 1, fields: 20, fieldSize: 64 * 1024 },
  });
  if (platform.config.PMS_RATE_LIMIT_PER_MINUTE > 0) {
    await app.register(rateLimit, {
      max: platform.config.PMS_RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request) => {
        const header = request.headers.authorization ?? request.headers["x-api-key"];
        return header ? hashKey(String(header)) : request.ip;
      },
      errorResponseBuilder: () => ({
        statusCode: 429,
        error: "TooManyRequests",
        message: "Rate limit exceeded for this API key",
      }),
    });
  }
  await app.register(auth);
  await app.register(safeText);
  await app.register(idempotency);
  await app.register(staleReadModels);
  await app.register(healthRoutes);
  await app.register(adminRoutes);
  await app.register(identityProviderRoutes);
  await app.register(workerRoutes);
  for (const routes of areaRoutes) await app.register(routes);
  return app;
}
