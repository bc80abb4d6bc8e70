import { randomUUID } from "node:crypto";
import pg from "pg";
import { lesseeRegisteredData } from "../lib/lessees.ts";

const CHUNK = 10_000;
export async function seedLesseeEventsForProfile(url: string, from: number, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const template = lesseeRegisteredData("00000000-0000-0000-0000-000000000000", "x@example.test", 0);
    const metadata = { tenant_id: randomUUID(), actor_key_id: null, causation_id: null };
    for (let start = from; start < from + count; start += CHUNK) {
      const end = Math.min(from + count, start + CHUNK) - 1;
      await client.query(
        `INSERT INTO events (event_id, stream_name, stream_revision, type, schema_version, data, metadata)
         SELECT g.id, 'lessee-' || g.id, 0, 'LesseeRegistered', 1,
           $1::jsonb || jsonb_build_object('lessee_id', g.id, 'email', 'catchup-' || g.i || '@example.test',
                                           'last_name', 'Martin ' || g.i),
           $2::jsonb || jsonb_build_object('correlation_id', gen_random_uuid(), 'occurred_at',
             to_char((timestamptz '2024-01-01 00:00:00+00' + g.i * interval '1 second') AT TIME ZONE 'UTC',
                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series($3::int, $4::int) AS i) g`,
        [JSON.stringify(template), JSON.stringify(metadata), start, end],
      );
    }
    await client.query("ANALYZE events");
  } finally {
    await client.end();
  }
}
