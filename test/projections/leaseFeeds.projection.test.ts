import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EstateEvent, estateStream } from "../../src/events/estates.ts";
import { type LeaseEvent, leaseStream } from "../../src/events/leases.ts";
import { estatesProjection } from "../../src/projections/estates.ts";
import { lesseeLeaseLinksProjection } from "../../src/projections/leases.ts";
import { type GivenEvent, on, projectionSpec } from "../support/projectionSpec.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * The lease feeds of other areas' read models (`feedEstateLeaseStatus`, `feedLesseeActiveLeases`)
 * fold a batch in memory and write it in a few statements (docs/performance.md): a whole lease
 * life in one batch must leave the rows that one batch per event leaves.
 */
describe.each(databaseKinds)("lease feeds on %s", (kind) => {
  let spec: Awaited<ReturnType<typeof projectionSpec>>;
  beforeAll(async () => {
    spec = await projectionSpec(kind, [estatesProjection, lesseeLeaseLinksProjection]);
  });
  afterAll(async () => spec?.close());

  const estate = (estate_id: string): EstateEvent =>
    ({
      type: "EstateCreated",
      data: {
        estate_id,
        place_id: randomUUID(),
        owner_id: null,
        name: "T2",
        estate_type_id: randomUUID(),
        area: 40,
        fiscal_identifier: "123456789012",
        rent_amount: 700,
      },
    }) as unknown as EstateEvent;
  const lease = (type: string, lease_id: string, data: Record<string, unknown> = {}) =>
    on(leaseStream(lease_id), {
      type,
      data: { lease_id, effective_date: "2025-01-01", reason: null, ...data },
    } as LeaseEvent);

  /** Two estates; a lease that moves between them with its tenants; one deleted, one in notice. */
  function story(ids: Record<string, string>): GivenEvent[] {
    const { a, b, l1, l2, l3, x, y } = ids;
    let associations = 0;
    const added = (lease_id: string, lessee_id: string) =>
      lease("LeaseLesseeAdded", lease_id, {
        association_id: ids[`s${++associations}`],
        lessee_id,
        role: "Primary",
        start_date: "2025-01-01",
        end_date: null,
      });
    return [
      on(estateStream(a), estate(a)),
      on(estateStream(b), estate(b)),
      lease("LeaseCreated", l1, { estate_id: a, rent_amount: 800 }),
      added(l1, x),
      lease("LeaseActivated", l1),
      added(l1, y),
      lease("LeaseRentChanged", l1, { rent_amount: 900 }),
      lease("LeaseUpdated", l1, { changes: { estate_id: b } }),
      lease("LeaseLesseeUpdated", l1, { lessee_id: y, changes: { role: "CoTenant" } }),
      lease("LeaseLesseeEnded", l1, { lessee_id: x, ended_on: "2025-06-30" }),
      lease("LeaseCreated", l2, { estate_id: a, rent_amount: 500 }),
      added(l2, x),
      lease("LeaseActivated", l2),
      lease("LeaseLesseeRemoved", l2, { lessee_id: x }),
      added(l2, y),
      lease("LeaseDeleted", l2, { estate_id: a }),
      lease("LeaseCreated", l3, { estate_id: a, rent_amount: 650 }),
      added(l3, x),
      lease("LeaseActivated", l3),
      lease("LeaseNoticeGiven", l3),
    ];
  }

  /** Fresh ids for one telling of the story, named so two tellings compare. */
  const idsOf = () =>
    Object.fromEntries(
      ["a", "b", "l1", "l2", "l3", "x", "y", "s1", "s2", "s3", "s4", "s5"].map((n) => [n, randomUUID()]),
    );

  /** The rows the feeds wrote for a tenant, ids replaced by their names. */
  const state = async (tenant: string, ids: Record<string, string>) => {
    const names = new Map(Object.entries(ids).map(([n, id]) => [id, n]));
    const named = (rows: Record<string, unknown>[]) =>
      rows
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, names.get(v as string) ?? v])))
        .sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q)));
    return {
      status: named(
        await spec.sql.query(
          "SELECT id, estate_id, lease_id, status, rent_amount FROM estate_lease_status WHERE tenant_id = $1",
          [tenant],
        ),
      ),
      estates: named(
        await spec.sql.query("SELECT id, rental_status, rent_amount FROM estates WHERE tenant_id = $1", [
          tenant,
        ]),
      ),
      links: named(
        await spec.sql.query(
          `SELECT id, lessee_id, lease_id, role, lease_status, ended FROM lessee_active_leases WHERE tenant_id = $1`,
          [tenant],
        ),
      ),
    };
  };

  const primary = (lease_id: string, lessee_id: string, association_id: string) =>
    lease("LeaseLesseeAdded", lease_id, {
      association_id,
      lessee_id,
      role: "Primary",
      start_date: "2025-01-01",
      end_date: null,
    });

  it("a batch of status changes only (set in SQL, rows not read) leaves what the general fold leaves", async () => {
    const opening = (ids: Record<string, string>): GivenEvent[] => [
      on(estateStream(ids.a), estate(ids.a)),
      on(estateStream(ids.b), estate(ids.b)),
      lease("LeaseCreated", ids.l1, { estate_id: ids.a, rent_amount: 800 }),
      primary(ids.l1, ids.x, ids.s1),
      lease("LeaseCreated", ids.l3, { estate_id: ids.b, rent_amount: 650 }),
      primary(ids.l3, ids.y, ids.s2),
    ];
    // Several changes of one lease in the batch: the last one counts.
    const changes = (ids: Record<string, string>): GivenEvent[] => [
      lease("LeaseActivated", ids.l1),
      lease("LeaseActivated", ids.l3),
      lease("LeaseNoticeGiven", ids.l1),
      lease("LeaseNoticeWithdrawn", ids.l1),
      lease("LeaseNoticeGiven", ids.l1),
      lease("LeaseNoticeGiven", ids.l3),
      lease("LeaseNoticeWithdrawn", ids.l3),
    ];
    const [fast, general] = [idsOf(), idsOf()];
    const first = await spec.given(opening(fast));
    await spec.given(changes(fast), first.tenant_id);
    // With a creation in the same batch, the feeds take the general path (read, fold, upsert).
    const together = await spec.given([...opening(general), ...changes(general)]);
    const onFastPath = await state(first.tenant_id, fast);
    expect(onFastPath).toEqual(await state(together.tenant_id, general));
    expect(onFastPath.estates).toEqual([
      { id: "a", rental_status: "NOTICE", rent_amount: 800 },
      { id: "b", rental_status: "RENTED", rent_amount: 650 },
    ]);
    expect(onFastPath.links.map((l) => [l.id, l.lease_status])).toEqual([
      ["s1", "NOTICE"],
      ["s2", "ACTIVE"],
    ]);
  });

  it("a lease life in one batch leaves the rows of one batch per event", async () => {
    const [once, perEvent] = [idsOf(), idsOf()];
    const batched = await spec.given(story(once));
    const oneByOne = randomUUID();
    for (const e of story(perEvent)) await spec.given([e], oneByOne);
    const inOne = await state(batched.tenant_id, once);
    expect(inOne).toEqual(await state(oneByOne, perEvent));
    // Not vacuous: the lease that moved rents estate b at its new rent; a is in notice through l3.
    expect(inOne.status).toEqual([
      { id: "l1", estate_id: "b", lease_id: "l1", status: "ACTIVE", rent_amount: 900 },
      { id: "l3", estate_id: "a", lease_id: "l3", status: "NOTICE", rent_amount: 650 },
    ]);
    expect(inOne.estates).toEqual([
      { id: "a", rental_status: "NOTICE", rent_amount: 650 },
      { id: "b", rental_status: "RENTED", rent_amount: 900 },
    ]);
    expect(inOne.links).toEqual([
      { id: "s1", lessee_id: "x", lease_id: "l1", role: "Primary", lease_status: "ACTIVE", ended: true },
      { id: "s2", lessee_id: "y", lease_id: "l1", role: "CoTenant", lease_status: "ACTIVE", ended: false },
      { id: "s5", lessee_id: "x", lease_id: "l3", role: "Primary", lease_status: "NOTICE", ended: false },
    ]);
  });
});
