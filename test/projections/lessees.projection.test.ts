import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LESSEE_FIELDS, type LesseeData, type LesseeEvent, lesseeStream } from "../../src/events/lessees.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const lessee = (over: Partial<LesseeData>): LesseeData => ({
  ...(Object.fromEntries(LESSEE_FIELDS.map((f) => [f, null])) as Record<keyof LesseeData, null>),
  category: "individual",
  email: "marie@example.fr",
  ...over,
});

describe.each(databaseKinds)("lessees projection on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [lesseesProjection]);
  });
  afterAll(async () => spec?.close());

  const id = () => randomUUID();
  const registered = (lessee_id: string, data: Partial<LesseeData>): LesseeEvent => ({
    type: "LesseeRegistered",
    data: { lessee_id, ...lessee(data) },
  });

  it("given a registration, then one row with every field, created and updated at its time, revision 0", async () => {
    const a = id();
    const t = await spec.given([
      on(
        lesseeStream(a),
        registered(a, { first_name: "Marie", monthly_income: 3200.5, birth_date: "1990-04-02" }),
        "2025-03-01T08:00:00.000Z",
      ),
    ]);
    const [row] = await t.rows("lessees");
    expect(row).toMatchObject({
      id: a,
      first_name: "Marie",
      email: "marie@example.fr",
      monthly_income: 3200.5,
      birth_date: "1990-04-02",
      iban: null,
      revision: 0,
    });
    expect(new Date(row.created_at).toISOString()).toBe("2025-03-01T08:00:00.000Z");
    expect(new Date(row.updated_at).toISOString()).toBe("2025-03-01T08:00:00.000Z");
  });

  it("given updates and an email change, then the changed fields, the new email, the last revision", async () => {
    const a = id();
    const t = await spec.given([
      on(lesseeStream(a), registered(a, { first_name: "Marie", custom_fields: { pet: "cat" } })),
      on(lesseeStream(a), {
        type: "LesseeUpdated",
        data: { lessee_id: a, changes: { first_name: "Maria", custom_fields: null } },
      }),
      on(lesseeStream(a), {
        type: "LesseeEmailChanged",
        data: { lessee_id: a, email: "maria@example.fr", previous_email: "marie@example.fr" },
      }),
    ]);
    const [row] = await t.rows("lessees");
    expect(row).toMatchObject({
      first_name: "Maria",
      custom_fields: null,
      email: "maria@example.fr",
      revision: 2,
    });
    expect(row.updated_at.getTime()).toBeGreaterThan(row.created_at.getTime());
  });

  it("given a deletion or an abandoned registration, then no row; other lessees stay", async () => {
    const [a, b, c] = [id(), id(), id()];
    const t = await spec.given([
      on(lesseeStream(a), registered(a, { email: "a@example.fr" })),
      on(lesseeStream(b), registered(b, { email: "b@example.fr" })),
      on(lesseeStream(a), { type: "LesseeDeleted", data: { lessee_id: a } }),
      on(lesseeStream(c), {
        type: "LesseeRegistrationAbandoned",
        data: { lessee_id: c, email: "c@example.fr" },
      }),
    ]);
    expect((await t.rows("lessees")).map((r) => r.id)).toEqual([b]);
  });

  it("keeps tenants apart: the same events in another tenant make their own rows", async () => {
    const a = id();
    const first = await spec.given([on(lesseeStream(a), registered(a, {}))]);
    const other = await spec.given([on(lesseeStream(id()), registered(id(), {}))]);
    expect(await first.rows("lessees")).toHaveLength(1);
    expect((await other.rows("lessees")).map((r) => r.tenant_id)).toEqual([other.tenant_id]);
  });
});
