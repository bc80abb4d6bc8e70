import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEMPLATE_VERSION } from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { generateLeasePdfs } from "../../src/commands/leases/pdfs.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { parisDate } from "../../src/platform/formatDates.ts";
import { frenchDate } from "../../src/platform/frenchText.ts";
import { CONTRACT_FACTS } from "../../src/queries/leaseContractFacts.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("lease contract PDFs API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, newLessee, writesNothing, place } = leaseFixtures(() => t);
  const generate = (leaseId: string, as = t.tenant) =>
    t.request("POST", `/api/leases/${leaseId}/pdf`, { as });
  const stats = async (as = t.tenant) => {
    const res = await t.request("GET", "/api/leases/cache/stats", { as });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { entries: number; bytes: number; hits: number; misses: number };
  };

  it("generates, lists, serves and deletes a contract PDF", async () => {
    const { id } = await newLease({
      revision_index_type: "IRL",
      revision_reference_quarter: "2025-Q2",
      revision_reference_value: 146.68,
    });
    const res = await generate(id);
    expect(res.statusCode, res.body).toBe(201);
    const pdf = res.json();
    expect(pdf).toMatchObject({ lease_id: id, template: "UNFURNISHED", lease_revision: expect.any(Number) });
    expect(Object.keys(pdf).sort()).toEqual(
      [
        "created_at",
        "filename",
        "id",
        "lease_id",
        "lease_revision",
        "sha256",
        "size",
        "template",
        "template_version",
      ].sort(),
    );
    expect(res.headers.location).toBe(`/api/leases/pdf/${pdf.id}`);

    const file = await t.request("GET", `/api/leases/pdf/${pdf.id}`);
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("application/pdf");
    expect(file.rawPayload.subarray(0, 5).toString()).toBe("%PDF-");
    expect(file.rawPayload.length).toBe(pdf.size);
    expect(createHash("sha256").update(file.rawPayload).digest("hex")).toBe(pdf.sha256);
    expect(file.headers["content-disposition"]).toBe(
      `attachment; filename="bail-logement-nu-2025-01-01-${id.slice(0, 8)}.pdf"; filename*=UTF-8''bail-logement-nu-2025-01-01-${id.slice(0, 8)}.pdf`,
    );

    const list = await t.request("GET", `/api/leases/${id}/pdfs`);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([pdf]);

    expect((await t.request("DELETE", `/api/leases/pdf/${pdf.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/leases/pdf/${pdf.id}`)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/${id}/pdfs`)).json()).toEqual([]);
    await writesNothing(async () => {
      const again = await t.request("DELETE", `/api/leases/pdf/${pdf.id}`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toMatchObject({ error: "NotFound", message: `Lease PDF ${pdf.id} not found` });
    });
  });

  it("prints the parties, the rent, the deposit and the index quarter", async () => {
    const guarantor = await newLessee("guarantor");
    const { id } = await newLease({
      rent_amount: 912.5,
      deposit_amount: 912.5,
      revision_index_type: "IRL",
      revision_reference_quarter: "2025-Q2",
      revision_reference_value: 146.68,
    });
    const lessee = (await t.request("GET", `/api/leases/${id}/lessees`)).json()[0];
    const person = (await t.request("GET", `/api/lessees/${lessee.lessee_id}`)).json();
    const added = await t.request("POST", `/api/leases/${id}/lessees`, {
      body: { lessee_id: guarantor, role: "Guarantor" },
    });
    expect(added.statusCode, added.body).toBe(201);
    const pdf = (await generate(id)).json();
    const text = await pdfText((await t.request("GET", `/api/leases/pdf/${pdf.id}`)).rawPayload);
    expect(text).toContain(`${person.first_name} ${person.last_name}`);
    const garant = (await t.request("GET", `/api/lessees/${guarantor}`)).json();
    expect(text).toContain(garant.legal_name);
    expect(text).toContain("912,50 €");
    expect(text).toMatch(/Dépôt de garantie : 912,50 €/);
    expect(text).toContain("2e trimestre 2025");
  });

  it("prints the estate's contract fields, its equipment and the lease's payment terms (décret n° 2015-587)", async () => {
    const { id, estate_id } = await newLease({
      rent_frequency: "QUARTERLY",
      payment_terms: "TERME_ECHU",
      payment_day: 10,
    });
    const estate = await t.request("PUT", `/api/estates/${estate_id}`, {
      body: {
        legal_regime: "COPROPRIETE",
        heating: { mode: "COLLECTIVE", energy: "réseau de chaleur" },
        hot_water: { mode: "INDIVIDUAL", energy: "électricité" },
        private_parts: ["cave n° 3"],
        common_parts: ["ascenseur", "local vélos"],
        it_access: ["fibre optique"],
      },
    });
    expect(estate.statusCode, estate.body).toBe(200);
    expect(estate.json()).toMatchObject({ legal_regime: "COPROPRIETE", private_parts: ["cave n° 3"] });
    const city = await t.request("PUT", `/api/places/${place()}`, {
      body: { address_street: "4 rue Mercière", address_postal_code: "69002", address_city: "Lyon" },
    });
    expect(city.statusCode, city.body).toBe(200);
    const bad = await t.request("PUT", `/api/estates/${estate_id}`, {
      body: { heating: { mode: "CENTRAL" } },
    });
    expect(bad.statusCode).toBe(400);
    const room = await t.request("POST", `/api/places/${place()}/estates/${estate_id}/rooms`, {
      body: { name: "Cuisine", room_type_id: globalTypeIds.room.kitchen },
    });
    expect(room.statusCode, room.body).toBe(201);
    const oven = await t.request(
      "POST",
      `/api/places/${place()}/estates/${estate_id}/rooms/${room.json().id}/equipment`,
      {
        body: { equipment_type_id: globalTypeIds.equipment.oven },
      },
    );
    expect(oven.statusCode, oven.body).toBe(201);
    const types = (await t.request("GET", "/api/types/equipment?limit=1000")).json();
    const ovenName = types.find((x: { id: string }) => x.id === globalTypeIds.equipment.oven).name;
    const pdf = (await generate(id)).json();
    const text = await pdfText((await t.request("GET", `/api/leases/pdf/${pdf.id}`)).rawPayload);
    for (const mention of [
      "Régime juridique de l'immeuble copropriété",
      "Modalité de production de chauffage collectif, réseau de chaleur",
      "Modalité de production d'eau chaude sanitaire individuel, électricité",
      `Équipements du logement ${ovenName}`,
      "cave n° 3",
      "ascenseur, local vélos",
      "fibre optique",
      "payables à terme échu, selon une périodicité de paiement trimestriel, le 10 du premier mois de chaque trimestre",
      // The estate has no address of its own: the place's is the dwelling's.
      "4 rue Mercière, 69002 Lyon",
      `Fait à Lyon, le ${frenchDate(parisDate())}`,
    ])
      expect(text, mention).toContain(mention);
    expect(text).not.toContain(id);
  });

  it("gives a guarantor's act of guarantee: parties, lease, rent and revision, cap and duration, the mention (art. 22-1, code civil 2297)", async () => {
    const guarantor = await newLessee("guarantor");
    const { id, primary_lessee_id } = await newLease({
      revision_index_type: "IRL",
      revision_reference_quarter: "2025-Q2",
      revision_reference_value: 146.68,
    });
    expect(
      (
        await t.request("POST", `/api/leases/${id}/lessees`, {
          body: { lessee_id: guarantor, role: "Guarantor" },
        })
      ).statusCode,
    ).toBe(201);
    const act = await t.request("GET", `/api/leases/${id}/guarantees/${guarantor}/pdf`);
    expect(act.statusCode, act.body).toBe(200);
    expect(act.headers["content-type"]).toBe("application/pdf");
    const text = await pdfText(act.rawPayload);
    const garant = (await t.request("GET", `/api/lessees/${guarantor}`)).json();
    for (const mention of [
      "ACTE DE CAUTIONNEMENT SOLIDAIRE",
      `La caution : ${garant.legal_name}`,
      "Le bailleur, créancier",
      "Le locataire, débiteur",
      "prenant effet le 1er janvier 2025, pour une durée de 3 ans",
      "Un exemplaire du contrat de location est remis à la caution",
      "Montant du loyer mensuel, hors charges : 800,00 €",
      "trimestre de référence : 2e trimestre 2025",
      // The cap: the rent and charges of the first term, 36 × 850,00 €.
      "Montant maximal de l'engagement, en principal et accessoires : 30 600,00 €",
      "Durée de l'engagement : 3 ans",
      "avant-dernier alinéa de l'article 22-1",
      "code civil, art. 2297",
      "Mention écrite par la caution",
    ])
      expect(text, mention).toContain(mention);
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}|2025-Q2/);
    // Not a guarantor of the lease, an unknown lease, another tenant: 404.
    expect((await t.request("GET", `/api/leases/${id}/guarantees/${primary_lessee_id}/pdf`)).statusCode).toBe(
      404,
    );
    expect((await t.request("GET", `/api/leases/${UNKNOWN}/guarantees/${guarantor}/pdf`)).statusCode).toBe(
      404,
    );
    expect(
      (await t.request("GET", `/api/leases/${id}/guarantees/${guarantor}/pdf`, { as: t.other })).statusCode,
    ).toBe(404);
  });

  const pdfCount = async (leaseId: string) => {
    const list = await t.request("GET", `/api/leases/${leaseId}/pdfs`);
    expect(list.statusCode, list.body).toBe(200);
    return (list.json() as unknown[]).length;
  };
  const blobCount = async () =>
    Number(
      (
        await t.sql.query("SELECT count(*)::int AS n FROM blobs WHERE key LIKE $1", [
          `tenants/${t.tenant.id}/lease-pdfs/%`,
        ])
      )[0].n,
    );

  it("answers the existing PDF for an unchanged contract, writing nothing; a new one after a delete or a change", async () => {
    const { id } = await newLease();
    expect((await t.request("POST", "/api/leases/cache/clear")).statusCode).toBe(200);
    const before = await stats();
    expect(before.entries).toBe(0);
    const first = (await generate(id)).json();
    const afterFirst = await stats();
    expect(afterFirst).toMatchObject({ misses: before.misses + 1, hits: before.hits, entries: 1 });
    expect(afterFirst.bytes).toBe(first.size);

    // Same contract: the same record, no event, no bytes; the reused render is a hit.
    const blobs = await blobCount();
    await writesNothing(async () => {
      const again = await generate(id);
      expect(again.statusCode, again.body).toBe(201);
      expect(again.headers.location).toBe(`/api/leases/pdf/${first.id}`);
      expect(again.json()).toEqual(first);
    });
    expect(await blobCount()).toBe(blobs);
    expect(await pdfCount(id)).toBe(1);
    expect(await stats()).toMatchObject({ misses: before.misses + 1, hits: before.hits + 1, entries: 1 });

    // The record deleted: a new record, its bytes from the cache (a hit, same sha256).
    expect((await t.request("DELETE", `/api/leases/pdf/${first.id}`)).statusCode).toBe(204);
    const second = (await generate(id)).json();
    expect(second.id).not.toBe(first.id);
    expect(second.sha256).toBe(first.sha256);
    expect(second.lease_revision).toBe(first.lease_revision);
    expect(await pdfCount(id)).toBe(1);
    expect(await stats()).toMatchObject({ misses: before.misses + 1, hits: before.hits + 2, entries: 1 });

    // A rent change is a new lease revision: a miss, a new record, other bytes.
    const rent = await t.request("PUT", `/api/leases/${id}`, { body: { rent_amount: 850 } });
    expect(rent.statusCode, rent.body).toBe(200);
    const third = (await generate(id)).json();
    expect(third.id).not.toBe(second.id);
    expect(third.lease_revision).toBeGreaterThan(first.lease_revision);
    expect(third.sha256).not.toBe(first.sha256);
    expect(await pdfCount(id)).toBe(2);
    expect(await stats()).toMatchObject({ misses: before.misses + 2, hits: before.hits + 2, entries: 1 });

    // Another tenant's stats and clear do not see this tenant's cache.
    expect((await stats(t.other)).entries).toBe(0);
    const otherClear = await t.request("POST", "/api/leases/cache/clear", { as: t.other });
    expect(otherClear.json()).toEqual({ cleared: 0 });
    expect((await stats()).entries).toBe(1);

    const cleared = await t.request("POST", "/api/leases/cache/clear");
    expect(cleared.json()).toEqual({ cleared: 1 });
    expect((await stats()).entries).toBe(0);
    // Clearing the cache keeps the bytes of the PDFs already generated.
    const kept = await t.request("GET", `/api/leases/pdf/${second.id}`);
    expect(kept.statusCode).toBe(200);
    expect(createHash("sha256").update(kept.rawPayload).digest("hex")).toBe(second.sha256);
    // ... and the unchanged contract still answers its record, without a render.
    await writesNothing(async () => {
      expect((await generate(id)).json()).toEqual(third);
    });
    expect(await stats()).toMatchObject({ misses: before.misses + 2, hits: before.hits + 3, entries: 0 });
  });

  it("answers concurrent POSTs of one contract without an error", async () => {
    const { id } = await newLease();
    const answers = await Promise.all([1, 2, 3, 4].map(() => generate(id)));
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const pdfs = answers.map((res) => res.json());
    // Racing renders may differ in bytes: the PDF's CreationDate is the render's second (docs/pdf.md).
    expect(new Set(pdfs.map((p) => p.lease_revision)).size).toBe(1);
    // Racing POSTs may each make a record (none saw another's yet); every one is listed.
    const ids = new Set(pdfs.map((p) => p.id));
    expect(await pdfCount(id)).toBe(ids.size);
    // Later POSTs all answer one of them, always the same.
    const later = await Promise.all([1, 2, 3].map(() => generate(id)));
    const laterIds = new Set(later.map((res) => res.json().id));
    expect(laterIds.size).toBe(1);
    expect(ids.has([...laterIds][0])).toBe(true);
    expect(await pdfCount(id)).toBe(ids.size);
  });

  it("renders anew when a fact from another stream changes the contract (lessee address)", async () => {
    const { id, primary_lessee_id } = await newLease();
    const first = (await generate(id)).json();
    const moved = await t.request("PUT", `/api/lessees/${primary_lessee_id}`, {
      body: { address_street: "3 rue Neuve", address_postal_code: "69001", address_city: "Lyon" },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const before = await stats();
    const second = (await generate(id)).json();
    expect(second.id).not.toBe(first.id);
    expect(second.lease_revision).toBe(first.lease_revision);
    expect(second.sha256).not.toBe(first.sha256);
    expect((await stats()).misses).toBe(before.misses + 1);
  });

  it("never fetches an image a lease's data names (URL or local file)", async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as { port: number };
      const { id } = await newLease({
        special_conditions: `Plan ![plan](http://127.0.0.1:${port}/plan.png)\nPhoto ![p](/etc/hostname)`,
      });
      const res = await generate(id);
      expect(res.statusCode, res.body).toBe(201);
      const text = await pdfText((await t.request("GET", `/api/leases/pdf/${res.json().id}`)).rawPayload);
      expect(text).toContain(`127.0.0.1:${port}/plan.png`);
      expect(text).toContain("/etc/hostname");
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers 422 naming a lease type without a template, and writes nothing", async () => {
    const { id } = await newLease({ lease_type: "PARKING", deposit_amount: null });
    await writesNothing(async () => {
      const res = await generate(id);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({
        error: "UnprocessableEntity",
        message: expect.stringContaining("PARKING"),
      });
    });
  });

  it("keeps tenants apart and refuses bad ids", async () => {
    const { id } = await newLease();
    const pdf = (await generate(id)).json();
    await writesNothing(async () => {
      for (const [method, url] of [
        ["POST", `/api/leases/${id}/pdf`],
        ["GET", `/api/leases/${id}/pdfs`],
        ["GET", `/api/leases/pdf/${pdf.id}`],
        ["DELETE", `/api/leases/pdf/${pdf.id}`],
      ]) {
        const res = await t.request(method, url, { as: t.other });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json().error).toBe("NotFound");
      }
      for (const [method, url] of [
        ["POST", `/api/leases/${UNKNOWN}/pdf`],
        ["GET", `/api/leases/${UNKNOWN}/pdfs`],
        ["GET", `/api/leases/pdf/${UNKNOWN}`],
        ["DELETE", `/api/leases/pdf/${UNKNOWN}`],
      ]) {
        expect((await t.request(method, url)).statusCode, `${method} ${url}`).toBe(404);
      }
      for (const [method, url] of [
        ["POST", "/api/leases/not-a-uuid/pdf"],
        ["GET", "/api/leases/not-a-uuid/pdfs"],
        ["GET", "/api/leases/pdf/not-a-uuid"],
        ["DELETE", "/api/leases/pdf/not-a-uuid"],
      ]) {
        const res = await t.request(method, url);
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json().error).toBe("ValidationError");
      }
    });
    // The other tenant's PDF is still there for its owner.
    expect((await t.request("GET", `/api/leases/pdf/${pdf.id}`)).statusCode).toBe(200);
  });

  it("routes the static segments (pdf, cache) before /api/leases/:lease_id", async () => {
    const stats = await t.request("GET", "/api/leases/cache/stats");
    expect(stats.statusCode).toBe(200);
    expect(Object.keys(stats.json()).sort()).toEqual(["bytes", "entries", "hits", "misses"]);
    const clear = await t.request("POST", "/api/leases/cache/clear");
    expect(clear.statusCode).toBe(200);
    expect(clear.json()).toHaveProperty("cleared");
    // `pdf` and `cache` are not lease ids: these never reach the lease routes' uuid check.
    expect((await t.request("GET", `/api/leases/pdf/${UNKNOWN}`)).json().message).toBe(
      `Lease PDF ${UNKNOWN} not found`,
    );
  });

  it("asks for LeasesRead, LeasesWrite and LeasesDelete", async () => {
    const { id } = await newLease();
    const pdf = (await generate(id)).json();
    const reader = await t.newTenant(undefined, ["LeasesRead"]);
    // A key of another tenant with only Read: refused for its permission before any lookup.
    const res = await t.request("POST", `/api/leases/${id}/pdf`, { as: reader });
    expect(res.statusCode).toBe(403);
    expect((await t.request("POST", "/api/leases/cache/clear", { as: reader })).statusCode).toBe(403);
    expect((await t.request("DELETE", `/api/leases/pdf/${pdf.id}`, { as: reader })).statusCode).toBe(403);
    expect((await t.request("GET", "/api/leases/cache/stats", { as: reader })).statusCode).toBe(200);
    expect((await t.request("GET", "/api/leases/cache/stats", { as: null })).statusCode).toBe(401);
  });

  it("generates a batch for the workers through the same path, reporting failures", async () => {
    const { id } = await newLease();
    const other = await newLease({}, t.other);
    const result = await generateLeasePdfs(
      { sql: t.sql, store: t.service.platform.store },
      { tenant_id: t.tenant.id, lease_ids: [id, other.id, "nope"] },
    );
    expect(result.generated).toEqual([{ lease_id: id, pdf_id: expect.any(String) }]);
    expect(result.failed).toEqual([
      { lease_id: other.id, error: `Lease ${other.id} not found` },
      { lease_id: "nope", error: "Lease id nope is not a UUID" },
    ]);
    // The batch does not wait for its records to be read; once they are, the same contract again
    // gives the same record.
    for (let tries = 0; tries < 100 && (await pdfCount(id)) === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await pdfCount(id)).toBe(1);
    const again = await generateLeasePdfs(
      { sql: t.sql, store: t.service.platform.store },
      { tenant_id: t.tenant.id, lease_ids: [id] },
    );
    expect(again.generated).toEqual(result.generated);
  });

  it("reads a contract's DPE details by index under row-level security, whatever the prepared plan", async () => {
    const { id } = await newLease();
    // Another tenant's diagnoses, enough that a scan is no longer the planner's cheap choice.
    await t.sql.query(
      `INSERT INTO energy_diagnoses (tenant_id, id, reference_number, diagnosis_date, valid_until, energy_label,
         ges_label, construction_year, created_at, updated_at, revision)
       SELECT $1, gen_random_uuid(), 'DPE-' || i, '2024-01-01', '2034-01-01', 'D', 'D', 1990, now(), now(), 0
       FROM generate_series(1, 20000) AS i`,
      [randomUUID()],
    );
    await t.sql.exec("ANALYZE energy_diagnoses");
    // As the service runs it: the reader role, its tenant bound. A lookup whose condition holds a
    // function that is not leakproof (`->>`) cannot be an index condition there (leaseContractFacts.ts).
    for (const mode of ["force_custom_plan", "force_generic_plan"]) {
      const plan = await t.sql.asTenant(t.tenant.id, async (tx) => {
        await tx.exec(`SET LOCAL plan_cache_mode = ${mode}`);
        await tx.exec(`PREPARE contract_facts_plan(uuid, uuid, date, text) AS ${CONTRACT_FACTS}`);
        const rows = await tx.query(
          `EXPLAIN EXECUTE contract_facts_plan('${t.tenant.id}', '${id}', '2026-01-01', '${TEMPLATE_VERSION}')`,
        );
        await tx.exec("DEALLOCATE contract_facts_plan");
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
      expect(plan, mode).toContain("energy_diagnoses_pkey");
      expect(plan, mode).not.toMatch(/Seq Scan on (energy_diagnoses|leases)\b/);
    }
  });
});
