import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { generateClientTypes, SCHEMA_FILE } from "../../clients/typescript/generate.ts";
import { written } from "../../clients/typescript/index.ts";

describe("the typed client (clients/typescript)", () => {
  it("is generated from the routes as they are: the committed types equal a fresh generation", async () => {
    const [committed, fresh] = await Promise.all([readFile(SCHEMA_FILE, "utf8"), generateClientTypes()]);
    // A route, schema or openapi.ts change without `npm run client` lands here.
    const firstDifference = [...fresh].findIndex((c, i) => committed[i] !== c);
    expect(
      committed === fresh
        ? null
        : { firstDifference, fresh: fresh.slice(firstDifference - 200, firstDifference + 200) },
      "clients/typescript/schema.ts is stale: run npm run client",
    ).toBeNull();
    // Named schemas and operationIds reach the client.
    expect(fresh).toContain("getEstatesById: {");
    expect(fresh).toMatch(/\n {8}Estate: \{/);
    expect(fresh).toMatch(/\n {8}Error: \{/);
  }, 180_000);

  it("tells a written resource from a 202 accepted (read models late) with written()", () => {
    const estate = { id: "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001", name: "Apt 3B" };
    const accepted = { id: estate.id, status: "accepted" as const, location: `/api/estates/${estate.id}` };
    expect(written({ data: estate, response: new Response(null, { status: 201 }) })).toBe(estate);
    expect(written({ data: estate, response: new Response(null, { status: 200 }) })).toBe(estate);
    expect(written({ data: accepted, response: new Response(null, { status: 202 }) })).toBeNull();
    expect(written({ data: undefined, response: new Response(null, { status: 404 }) })).toBeNull();
  });
});
