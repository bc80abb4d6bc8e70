import type { Area } from "../area.ts";
import { loadConfig } from "../config.ts";
import { jobKinds } from "../jobs.ts";
import type { Platform } from "../platform.ts";
import { buildApp } from "./buildApp.ts";

/** What a document-only app must never reach: it is built, never listens, never serves. */
const absent = (part: string) =>
  new Proxy(
    {},
    {
      get(_target, property) {
        if (property === "then") return undefined;
        throw new Error(`The OpenAPI document is built without ${part} (reached ${String(property)})`);
      },
    },
  );

/**
 * The service's OpenAPI document, from the same routes `serve` registers, without a database:
 * routes read the platform only when they answer, and this app answers nothing
 * (`pms openapi`, the lint step of .ci/run, the typed client's generation).
 */
export async function openapiDocument(areas: readonly Area[]): Promise<Record<string, unknown>> {
  const projections = areas.flatMap((a) => a.projections);
  const kinds = jobKinds(
    projections,
    areas.flatMap((a) => a.jobs ?? []),
    () => {},
  );
  const platform = {
    config: loadConfig({ LOG_LEVEL: "silent" }),
    sql: absent("a database"),
    store: absent("an event store"),
    projections: absent("projections"),
    jobs: { ...absent("jobs"), kinds },
  } as unknown as Platform;
  const app = await buildApp(
    platform,
    areas.flatMap((a) => a.routes),
  );
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
