import { expect } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { eventCount, type TestApp, type TestTenant } from "./testApp.ts";

let n = 0;

/** Places, estates, lessees and leases for the leases API suites, through the API itself. */
export function leaseFixtures(t: () => TestApp) {
  let place: string | null = null;
  const newPlace = async (as?: TestTenant) => {
    const res = await t().request("POST", "/api/places", { body: { name: `Résidence ${++n}` }, as });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const newEstate = async (as?: TestTenant) => {
    place ??= await newPlace();
    const res = await t().request("POST", `/api/places/${as ? await newPlace(as) : place}/estates`, {
      body: {
        name: `Apt ${++n}`,
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        fiscal_identifier: `FI-${n}`,
      },
      as,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const newLessee = async (category = "individual", as?: TestTenant) => {
    const body =
      category === "guarantor"
        ? { category, legal_name: `Garant ${++n}`, email: `g${n}@example.fr` }
        : { category, first_name: "Camille", last_name: `Martin${++n}`, email: `c${n}@example.fr` };
    const res = await t().request("POST", "/api/lessees", { body, as });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  /** A DRAFT lease (800 + 50 a month from 2025-01-01) of a new estate; a new primary lessee unless `extra` names one. */
  const newLease = async (
    extra: { primary_lessee_id?: string; [field: string]: unknown } = {},
    as?: TestTenant,
  ) => {
    const estate_id = await newEstate(as);
    const primary_lessee_id = extra.primary_lessee_id ?? (await newLessee("individual", as));
    const res = await t().request("POST", "/api/leases", {
      body: {
        estate_id,
        primary_lessee_id,
        lease_type: "UNFURNISHED",
        start_date: "2025-01-01",
        rent_amount: 800,
        charges_amount: 50,
        deposit_amount: 800,
        ...extra,
      },
      as,
    });
    expect(res.statusCode, res.body).toBe(201);
    return { lease: res.json(), id: res.json().id as string, estate_id, primary_lessee_id };
  };
  const setStatus = (id: string, status: string, extra: object = {}, as?: TestTenant) =>
    t().request("PUT", `/api/leases/${id}/status`, { body: { status, ...extra }, as });
  /** Runs fn and checks it appended nothing to the log. */
  const writesNothing = async (fn: () => Promise<void>) => {
    const before = await eventCount(t());
    await fn();
    expect(await eventCount(t())).toBe(before);
  };
  return { place: () => place, newPlace, newEstate, newLessee, newLease, setStatus, writesNothing };
}
