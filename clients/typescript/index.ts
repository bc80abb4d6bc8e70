import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.ts";

/**
 * The typed client of the pms API: openapi-fetch over the types `npm run client` generates from
 * the service's OpenAPI document (./schema.ts). Paths, parameters, bodies and answers are checked
 * by the compiler:
 *
 *   const pms = createPmsClient({ baseUrl: "https://pms.example", apiKey: "pms_…" });
 *   const { data, error, response } = await pms.GET("/api/estates/{id}", { params: { path: { id } } });
 */
export type PmsClient = Client<paths>;

export function createPmsClient(options: ClientOptions & { apiKey?: string }): PmsClient {
  const { apiKey, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(headers as object) },
  });
}

/** The named schemas: `Schemas["Estate"]`, `Schemas["Error"]`, … */
export type Schemas = components["schemas"];

/**
 * A write answers its resource (200/201), or 202 `Accepted` when the service's read models lag
 * (the write is kept; GET its Location later). The resource, or null on a 202 or an error:
 *
 *   const estate = written(await pms.PUT("/api/estates/{id}", { params, body }));
 */
export function written<T>(result: { data?: T; response: Response }): Exclude<T, Schemas["Accepted"]> | null {
  const { status } = result.response;
  return status === 200 || status === 201 ? (result.data as Exclude<T, Schemas["Accepted"]>) : null;
}
export type { components, operations, paths };
