import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { addDays, legalToday } from "../../src/law/calendar.ts";
import { createPostgresSql } from "../../src/platform/db.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { atMost, type Context } from "../lib/context.ts";
import { seedActiveLeases, untilLeasesProjected } from "../lib/leases.ts";
import { round, sleep } from "../lib/stats.ts";

const DEBITS = 5_000;

async function query(url: string, text: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Issue 42 (SEPA Direct Debit): DEBITS leases paid by PRELEVEMENT_AUTOMATIQUE, each with a signed
 * mandate and one open call; one POST /api/bank-accounts/{id}/sepa-collections takes them all (the
 * batch's event, a debit payment on each lease account, each mandate marked used, read-your-writes),
 * then GET .../file serves the pain.008.001.08, validated by xmllint against the official XSD.
 * Pass: the POST ≤ 2 s with every call in the batch, and the file valid.
 */
export async function sepaStep(ctx: Context): Promise<void> {
  const service = await ctx.service();
  const url = await ctx.mainDatabase();
  const tenant = await service.newTenant(`bench-sepa-${ctx.runId}`);
  const today = legalToday();
  await seedActiveLeases(url, tenant.id, DEBITS, `${today.slice(0, 7)}-01`, {
    payment_method: "PRELEVEMENT_AUTOMATIQUE",
  });
  await untilLeasesProjected(url, tenant.id, DEBITS);
  // A signed mandate per lease, appended in bulk as the mandate route writes it.
  const metadata = {
    tenant_id: tenant.id,
    actor_key_id: null,
    causation_id: null,
    correlation_id: randomUUID(),
  };
  await query(
    url,
    `WITH m AS (SELECT gen_random_uuid() AS id, l.id AS lease_id FROM leases l WHERE l.tenant_id = $1)
     INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
     SELECT gen_random_uuid(), 'sepa_mandate-' || m.id, 0, 'SepaMandateSigned', 1,
       jsonb_build_object('mandate_id', m.id, 'lease_id', m.lease_id, 'lessee_id', gen_random_uuid(),
         'rum', 'PMS-' || upper(substr(replace(m.id::text, '-', ''), 1, 31)),
         'iban', 'DE89370400440532013000', 'bic', null, 'signed_on', $2::text),
       $3::jsonb || jsonb_build_object('occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     FROM m`,
    [tenant.id, addDays(today, -30), JSON.stringify(metadata)],
  );
  const sql = createPostgresSql(url, { max: 8 });
  try {
    await issueRentCalls({ sql, store: createPostgresEventStore(sql) }, { today, tenantId: tenant.id });
  } finally {
    await sql.close();
  }
  const ready = async () => {
    const [{ calls, mandates }] = await query(
      url,
      `SELECT (SELECT count(*)::int FROM rent_calls WHERE tenant_id = $1 AND status <> 'PAID') AS calls,
              (SELECT count(*)::int FROM sepa_mandates WHERE tenant_id = $1) AS mandates`,
      [tenant.id],
    );
    return calls >= DEBITS && mandates >= DEBITS;
  };
  for (const end = Date.now() + 600_000; !(await ready()) && Date.now() < end; ) await sleep(250);
  const auth = { authorization: `Bearer ${tenant.key}` };
  const created = await fetch(`${service.child.url}/api/bank-accounts`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      label: "Bench",
      iban: "FR7630006000011234567890189",
      creditor_id: "FR72ZZZ123456",
    }),
  });
  const account = ((await created.json()) as { id: string }).id;
  // No avis emailed in the bench: a call counts as pre-notified when issued, 14 days before the debit.
  const configuration = await (
    await fetch(`${service.child.url}/api/configurations`, { headers: auth })
  ).json();
  const saved = await fetch(`${service.child.url}/api/configurations`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      ...configuration,
      rent_messages: { avis: false, avis_days_before: 10, quittance: true },
    }),
  });
  if (saved.status !== 200) throw new Error(`PUT configurations: ${saved.status} ${await saved.text()}`);
  const t = performance.now();
  const res = await fetch(`${service.child.url}/api/bank-accounts/${account}/sepa-collections`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ due_on: addDays(today, 14) }),
  });
  const ms = performance.now() - t;
  const batch = (await res.json()) as { id: string; transactions?: unknown[]; total?: number };
  if (res.status !== 201) throw new Error(`POST sepa-collections: ${res.status} ${JSON.stringify(batch)}`);
  const f = performance.now();
  const xml = await (
    await fetch(`${service.child.url}/api/sepa-collections/${batch.id}/file`, { headers: auth })
  ).text();
  const fileMs = performance.now() - f;
  const lint = spawnSync(
    "xmllint",
    ["--noout", "--schema", "test/fixtures/bank/xsd/pain.008.001.08.xsd", "-"],
    {
      input: xml,
    },
  );
  const count = batch.transactions?.length ?? 0;
  ctx.raw.sepa = { debits: count, total: batch.total, ms, fileMs, bytes: xml.length, xmllint: lint.status };
  ctx.figures.push(
    {
      step: "42 sepa",
      metric: `SEPA batch of ${count} debits (one POST: payments recorded, mandates used)`,
      value: round(ms / 1000, 2),
      unit: "s",
      target: "≤ 2 s",
      pass: atMost(ms, 2000) && count === DEBITS,
      note: `${round(xml.length / 2 ** 20, 1)} MiB file served in ${round(fileMs / 1000, 2)} s`,
    },
    {
      step: "42 sepa",
      metric: "its pain.008.001.08 against the official XSD (xmllint)",
      value: lint.status === 0 ? 1 : 0,
      unit: "valid",
      target: "valid",
      pass: lint.status === 0,
    },
  );
}
