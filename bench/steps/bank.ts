import pg from "pg";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addMonths, legalToday } from "../../src/law/calendar.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { atMost, type Context } from "../lib/context.ts";
import { seedActiveLeases, untilLeasesProjected } from "../lib/leases.ts";
import { round, sleep } from "../lib/stats.ts";

const LINES = 10_000;
/** 12 monthly calls each: enough calls for every line to pay one. */
const LEASES = Math.ceil(LINES / 12);

async function rows(url: string, text: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** A camt.053 of `refs.length` credits, each quoting one call's payment reference. */
function camt053(refs: { payment_reference: string; total: number }[], day: string): string {
  const entries = refs
    .map(
      (r, i) => `<Ntry><Amt Ccy="EUR">${r.total.toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>${day}</Dt></BookgDt><AcctSvcrRef>BENCH${String(i).padStart(8, "0")}</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>LOCATAIRE ${i}</Nm></Dbtr></RltdPties>
<RmtInf><Strd><CdtrRefInf><Ref>${r.payment_reference}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls>
<AddtlNtryInf>VIR SEPA RECU LOYER</AddtlNtryInf></Ntry>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>${day}T06:00:00</CreDtTm></GrpHdr>
<Stmt><Id>BENCH-1</Id><CreDtTm>${day}T06:00:00</CreDtTm><Acct><Id><IBAN>FR7630006000011234567890189</IBAN></Id></Acct>
${entries}
</Stmt></BkToCstmrStmt></Document>`;
}

/**
 * Issue 42 (bank): a camt.053 of LINES credits, each quoting the RF reference of one of LINES open
 * calls, imported and matched through POST /api/bank-accounts/{id}/statements (parse, dedupe,
 * match, the ledger's append, every payment recorded on its lease account, read-your-writes);
 * then the same file again (nothing new). Pass: ≤ 5 s and every line matched.
 */
export async function bankStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const url = await ctx.mainDatabase();
  const tenant = await service.newTenant(`bench-bank-${ctx.runId}`);
  const today = legalToday();
  const start = addMonths(`${today.slice(0, 7)}-01`, -11);
  await seedActiveLeases(url, tenant.id, LEASES, start);
  await untilLeasesProjected(url, tenant.id, LEASES);
  const sql = createPostgresSql(url, { max: 8 });
  try {
    await issueRentCalls({ sql, store: createPostgresEventStore(sql) }, { today, tenantId: tenant.id });
  } finally {
    await sql.close();
  }
  const calls = async () =>
    rows(
      url,
      `SELECT payment_reference, total_amount::float8 AS total FROM rent_calls WHERE tenant_id = $1 AND status <> 'PAID' ORDER BY id LIMIT $2`,
      [tenant.id, LINES],
    );
  for (const end = Date.now() + 600_000; (await calls()).length < LINES && Date.now() < end; )
    await sleep(250);
  const refs = (await calls()) as { payment_reference: string; total: number }[];
  const file = camt053(refs, today);
  const auth = { authorization: `Bearer ${tenant.key}` };
  const created = await fetch(`${service.child.url}/api/bank-accounts`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ label: "Bench", iban: "FR7630006000011234567890189" }),
  });
  const account = ((await created.json()) as { id: string }).id;
  const post = async () => {
    const form = new FormData();
    form.append("file", new Blob([file], { type: "application/xml" }), "releve.xml");
    const t = performance.now();
    const res = await fetch(`${service.child.url}/api/bank-accounts/${account}/statements`, {
      method: "POST",
      headers: auth,
      body: form,
    });
    const body = (await res.json()) as { matched?: number; new_lines?: number };
    if (res.status !== 201 && res.status !== 202)
      throw new Error(`POST statements: ${res.status} ${JSON.stringify(body)}`);
    const answered = performance.now() - t;
    // 202: the read models had not passed the writes within the bound; the time is until they show
    // every payment (the books' postings included: they commit with the rest, one reader for all).
    while (res.status === 202 && (await recorded()) < refs.length) await sleep(100);
    return { ms: performance.now() - t, answered_ms: answered, status: res.status, body };
  };
  const recorded = async () =>
    (
      await rows(
        url,
        `SELECT count(*)::int AS n FROM lease_payments WHERE tenant_id = $1 AND status = 'RECORDED'`,
        [tenant.id],
      )
    )[0].n as number;
  const first = await post();
  const again = await post();
  const paid = await recorded();
  ctx.raw.bank = { lines: refs.length, bytes: file.length, first, again, payments: paid };
  ctx.figures.push(
    {
      step: "42 bank",
      metric: `camt.053 of ${refs.length} lines imported and matched (one POST, payments recorded)`,
      value: round(first.ms / 1000, 2),
      unit: "s",
      target: "≤ 5 s",
      pass:
        atMost(first.ms, 5000) &&
        first.status === 201 &&
        first.body.matched === refs.length &&
        paid === refs.length,
      note: `${first.body.matched ?? "?"} matched, ${paid} payments, ${round(file.length / 2 ** 20, 1)} MiB; answered ${first.status} in ${round(first.answered_ms / 1000, 2)} s`,
    },
    {
      step: "42 bank",
      metric: "the same statement again (no line new)",
      value: round(again.ms / 1000, 2),
      unit: "s",
      target: "0 new lines",
      pass: again.body.new_lines === 0,
    },
  );
}
