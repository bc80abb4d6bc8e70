import { describe, expect, it } from "vitest";
import { z } from "zod";
import { serializerCompiler } from "../../src/platform/http/serializeResponse.ts";

/** Answers written by fast-json-stringify from the route's zod schema (docs/decisions.md). */
describe("serializerCompiler", () => {
  const address = z.strictObject({ street: z.string().nullable(), city: z.string().nullable() });
  const schema = z.strictObject({
    id: z.string(),
    note: z.string().nullable(),
    address: address.nullable(),
    tags: z.array(z.string()).nullable(),
    fields: z.record(z.string(), z.unknown()).nullable(),
  });
  const write = serializerCompiler({ schema });

  it("writes nullable objects, arrays and primitives as JSON.stringify does, null or not", () => {
    const values = [
      { id: "a", note: null, address: null, tags: null, fields: null },
      {
        id: "b",
        note: "n",
        address: { street: null, city: "Lyon" },
        tags: ["x", "y"],
        fields: { k: [1, { v: null }] },
      },
      { id: "c", note: "", address: { street: "1 rue", city: null }, tags: [], fields: {} },
    ];
    for (const value of values) expect(JSON.parse(write(value))).toEqual(value);
  });

  it("leaves out fields the schema does not declare", () => {
    const written = JSON.parse(
      write({
        id: "a",
        note: null,
        address: { street: null, city: null, secret: 1 },
        tags: null,
        fields: null,
        extra: 2,
      }),
    );
    expect(written).toEqual({
      id: "a",
      note: null,
      address: { street: null, city: null },
      tags: null,
      fields: null,
    });
  });
});
