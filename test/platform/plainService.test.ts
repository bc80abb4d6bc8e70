import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/testApp.ts";

// The bench's `privacy` step compares the service against itself started with
// `sealPersonalData: false` (bench/plainService.ts): that comparison means something only if the
// option stores personal fields in the clear and changes nothing else a client sees.
describe("the service started without sealing personal data (bench only)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres", {}, { sealPersonalData: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("stores a lessee's personal fields in the clear and answers as the sealing service does", async () => {
    const created = await t.request("POST", "/api/lessees", {
      body: {
        category: "individual",
        first_name: "Claire",
        last_name: "Plaintext",
        email: "claire@plain.example",
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const [row] = await t.sql.query<{ data: string }>(
      "SELECT data::text AS data FROM events WHERE stream_name = $1",
      [`lessee-${id}`],
    );
    expect(row.data).toContain("claire@plain.example");
    expect(row.data).not.toContain("$personal");
    const read = (await t.request("GET", `/api/lessees/${id}`)).json();
    expect(read).toMatchObject({
      first_name: "Claire",
      last_name: "Plaintext",
      email: "claire@plain.example",
    });
    // The email stays unique, its reservation named without a keyed hash (no keyring).
    const again = await t.request("POST", "/api/lessees", {
      body: {
        category: "individual",
        first_name: "Other",
        last_name: "Person",
        email: "claire@plain.example",
      },
    });
    expect(again.statusCode).toBe(409);
  });
});
