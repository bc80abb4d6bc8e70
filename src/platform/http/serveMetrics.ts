import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { z } from "zod";
import { metrics, platformRegistry } from "../collectMetrics.ts";
import { answers } from "./responses.ts";

/** The Prometheus text exposition format: declared as text, sent as prom-client writes it. */
const metricsText = z.string().meta({
  description: "Prometheus metrics, text exposition format 0.0.4",
  content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } } },
});

/**
 * Request durations for every route, and the Prometheus text at GET /api/admin/metrics for the
 * platform admin key only, never a tenant's (docs/operations.md, "Metrics").
 */
export const serveMetrics = fp(async (app: FastifyInstance) => {
  // Callback hooks, not async ones, on every request: no promise per hook (docs/performance.md).
  app.addHook("onResponse", (request, reply, done) => {
    metrics.requestSeconds.observe(
      {
        // The route pattern, never the raw URL: ids would make one series per resource.
        route: request.routeOptions.url ?? "unmatched",
        method: request.method,
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });

  const scraped = platformRegistry(app.platform);
  app.get(
    "/api/admin/metrics",
    {
      schema: {
        tags: ["Admin"],
        summary: "Prometheus metrics (text exposition format)",
        response: answers(metricsText),
      },
      config: { access: "admin" },
    },
    async (_request, reply) => {
      const text = await scraped.metrics();
      return reply.type(scraped.contentType).send(text);
    },
  );
});
