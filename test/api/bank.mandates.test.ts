import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { rentCallId } from "../../src/events/rentCycle.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { multipartForm } from "../support/multipart.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** SEPA mandates (docs/bank.md): RUM, FRST, revocation, lapse after 36 months unused, the mandate's IBAN in matching. */
const MANDATE_IBAN = "DE89370400440532013000";

describe.each(databaseKinds)("SEPA mandates on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, newLessee, setStatus } = leaseFixtures(() => t);
  const sign = (leaseId: string, body: object) =>
    t.request("POST", `/api/leases/${leaseId}/sepa-mandates`, { body });

  it("records a mandate (RUM, ACTIVE, FRST), refuses bad ones, revokes once, lapses unused after 36 months", async () => {
    const { id, primary_lessee_id } = await newLease({ payment_day: 5 });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const res = await sign(id, {
      lessee_id: primary_lessee_id,
      iban: "de89 3704 0044 0532 0130 00",
      signed_on: "2025-01-02",
    });
    expect(res.statusCode, res.body).toBe(201);
    const mandate = res.json();
    expect(mandate).toMatchObject({
      lease_id: id,
      iban: MANDATE_IBAN,
      status: "ACTIVE",
      sequence: "FRST",
      revoked_on: null,
    });
    expect(mandate.rum).toMatch(/^PMS-[0-9A-F]{31}$/);
    const other = await newLessee();
    const before = await eventCount(t);
    expect(
      (await sign(id, { lessee_id: other, iban: MANDATE_IBAN, signed_on: "2025-01-02" })).json().details[0]
        .field,
    ).toBe("lessee_id");
    expect(
      (
        await sign(id, {
          lessee_id: primary_lessee_id,
          iban: "DE89370400440532013001",
          signed_on: "2025-01-02",
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await sign(id, { lessee_id: primary_lessee_id, iban: MANDATE_IBAN, signed_on: "2999-01-01" })).json()
        .details[0].field,
    ).toBe("signed_on");
    expect(
      (
        await sign("5b0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a0ff", {
          lessee_id: primary_lessee_id,
          iban: MANDATE_IBAN,
          signed_on: "2025-01-02",
        })
      ).statusCode,
    ).toBe(404);
    expect(await eventCount(t)).toBe(before);
    // Signed more than 36 months ago and never used: lapsed (EPC SDD rulebook).
    const old = (
      await sign(id, { lessee_id: primary_lessee_id, iban: MANDATE_IBAN, signed_on: "2021-01-04" })
    ).json();
    expect(old.status).toBe("LAPSED");
    const revoke = () => t.request("POST", `/api/leases/${id}/sepa-mandates/${mandate.id}/revoke`);
    const revoked = await revoke();
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ status: "REVOKED", revoked_on: expect.any(String) });
    expect((await revoke()).statusCode).toBe(409);
    const list = (await t.request("GET", `/api/leases/${id}/sepa-mandates`)).json();
    expect(list.map((m: { id: string; status: string }) => [m.id, m.status])).toEqual([
      [old.id, "LAPSED"],
      [mandate.id, "REVOKED"],
    ]);
    expect((await t.request("GET", `/api/leases/${id}/sepa-mandates`, { as: t.other })).statusCode).toBe(404);
  });

  it("a credit from the IBAN of the lessee's active mandate (none stored on the lessee) and the exact amount is matched", async () => {
    const { id, primary_lessee_id } = await newLease({ payment_day: 5 });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await issueRentCalls(
      { sql: t.sql, store: t.service.platform.store },
      { today: "2025-01-15", tenantId: t.tenant.id },
    );
    expect(
      (await sign(id, { lessee_id: primary_lessee_id, iban: MANDATE_IBAN, signed_on: "2025-01-02" }))
        .statusCode,
    ).toBe(201);
    const account = (
      await t.request("POST", "/api/bank-accounts", {
        body: { label: "SDD", iban: "FR7630006000011234567890189" },
      })
    ).json().id;
    const camt = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M</MsgId></GrpHdr><Stmt><Id>1</Id>
<Ntry><Amt Ccy="EUR">850.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2025-01-06</Dt></BookgDt><AcctSvcrRef>MANDATE-1</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>C MARTIN</Nm></Dbtr><DbtrAcct><Id><IBAN>${MANDATE_IBAN}</IBAN></Id></DbtrAcct></RltdPties></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
    const { payload, type } = multipartForm(
      {},
      { content: Buffer.from(camt), filename: "r.xml", type: "application/xml" },
    );
    const res = await t.app.inject({
      method: "POST",
      url: `/api/bank-accounts/${account}/statements`,
      payload,
      headers: { "content-type": type, authorization: `Bearer ${t.tenant.key}` },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ matched: 1 });
    const call = (
      await t.request("GET", `/api/leases/${id}/rent-calls/${rentCallId(id, "2025-01-01")}`)
    ).json();
    expect(call.status).toBe("PAID");
  });
});
