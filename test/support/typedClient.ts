import type { LightMyRequestResponse } from "fastify";
import { createPmsClient, type PmsClient } from "../../clients/typescript/index.ts";
import { responseCheckerOf } from "./checkResponse.ts";
import type { TestApp, TestTenant } from "./testApp.ts";

/**
 * The published typed client (clients/typescript) against the test app listening on a real port:
 * requests go through HTTP as any client's would. Every answer is also checked against
 * /api/openapi.json, as `t.request` does.
 */
export async function typedClientOf(t: TestApp): Promise<(as?: TestTenant) => PmsClient> {
  const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const check = await responseCheckerOf(t.app);
  return (as = t.tenant) => {
    const client = createPmsClient({ baseUrl: address, apiKey: as.key });
    client.use({
      async onResponse({ request, response }) {
        const url = new URL(request.url);
        const body = await response.clone().text();
        check(request.method, `${url.pathname}${url.search}`, {
          statusCode: response.status,
          body,
        } as LightMyRequestResponse);
        return undefined;
      },
    });
    return client;
  };
}
