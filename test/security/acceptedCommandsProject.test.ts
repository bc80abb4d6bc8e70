import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";
import {
  authorizationOf,
  expectEverythingProjected,
  type Fixtures,
  installProjectionErrorLog,
  jsonWriteRoutes,
  makeFixtures,
  type OpenApiDoc,
  pathOf,
  valueArb,
} from "./routeBodies.ts";

/**
 * Issue 38: no event a projection cannot apply is ever appended. Bodies generated from each
 * POST and PUT route's own schema (the API description of the router), the bounds included,
 * go to the route; whatever is accepted (2xx) must project: the read models pass the log's
 * head, no projection records an error, readiness stays 200. COMMAND_RUNS bodies per route
 * (default 6, bounded for CI).
 */
const RUNS = Number(process.env.COMMAND_RUNS ?? 6);

describe.each(databaseKinds)("accepted commands project on %s", (kind) => {
  let t: TestApp;
  let fixtures: Fixtures;
  let doc: OpenApiDoc;
  const statuses = new Map<number, number>();
  beforeAll(async () => {
    t = await createTestApp(kind);
    await installProjectionErrorLog(t);
    fixtures = await makeFixtures(t);
    doc = (await t.request("GET", "/api/openapi.json", { as: null })).json();
  });
  afterAll(async () => {
    await t?.close();
    console.log(`accepted commands on ${kind}: by status ${JSON.stringify(Object.fromEntries(statuses))}`);
  });

  it("every 2xx of a generated command projects, and no generated command is a 5xx", async () => {
    const routes = jsonWriteRoutes(t, doc);
    expect(routes.length).toBeGreaterThan(60);
    let accepted = 0;
    const failures: string[] = [];
    for (const { route, schema } of routes) {
      const run = fc.assert(
        fc.asyncProperty(valueArb(doc, schema, fixtures), async (body) => {
          const url = pathOf(fixtures, route.url);
          const res = await t.app.inject({
            method: route.method as "POST",
            url,
            payload: JSON.stringify(body),
            headers: { "content-type": "application/json", authorization: authorizationOf(t, route) },
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          expect(res.statusCode, `${route.method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBeLessThan(
            500,
          );
          if (res.statusCode < 300) accepted++;
        }),
        { numRuns: RUNS },
      );
      // Every route runs: one failing route must not hide the others'.
      await run.catch((error: Error) => failures.push(error.message.split("\n").slice(0, 8).join("\n")));
    }
    expect(failures).toEqual([]);
    // The generator must reach the deciders, or the property proves nothing.
    expect(accepted).toBeGreaterThan(routes.length / 4);
    await expectEverythingProjected(t);
  }, 300_000);
});
