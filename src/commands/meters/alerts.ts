import type { FastifyRequest } from "fastify";
import type { MeterAnomaly, MeterEvent, MeterType } from "../../events/meters.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import type { Row } from "../../platform/projections/projection.ts";
import { dwellingAddressOf } from "../../queries/leaseContractFacts.ts";
import { readConfiguration } from "../../queries/settings.ts";
import { alertRecipients, type MeterNaming, meterAlertEmail } from "./alertEmail.ts";

/** The meters an alert names: their kind, label, serial and dwelling (the estate's, else the place's). */
const METERS_SQL = `
  SELECT m.id, m.type, m.label, m.serial, m.unit, to_jsonb(e) AS estate, to_jsonb(p) AS place
  FROM meters m
  LEFT JOIN estates e ON e.tenant_id = m.tenant_id AND e.id = m.estate_id
  LEFT JOIN places p ON p.tenant_id = m.tenant_id AND p.id = m.place_id
  WHERE m.tenant_id = $1 AND m.id = ANY($2::uuid[])`;

/**
 * The consumption alert (docs/design.md §7.4, §7.6): one email per request that raised anomalies,
 * in French, to the addresses the tenant configured (`alert_emails`, else its sender's; never the
 * built-in no-reply one: nothing goes then), through the outbox. Its id derives from the first
 * anomalous reading, so a retried request queues it once. The outbound webhook `meter.anomaly`
 * comes from the log (src/projections/webhooks.ts), one per anomaly.
 */
export async function alertAnomalies(request: FastifyRequest, events: readonly MeterEvent[]): Promise<void> {
  const anomalies = events.flatMap((e): MeterAnomaly[] =>
    e.type === "MeterConsumptionAnomalyDetected" ? [e.data] : [],
  );
  if (anomalies.length === 0) return;
  const { platform } = request.server;
  const tenant_id = tenantOf(request);
  const configuration = await readConfiguration(platform.sql, tenant_id);
  const to = alertRecipients(configuration);
  if (to.length === 0) return;
  const ids = [...new Set(anomalies.map((a) => a.meter_id))];
  const rows = await platform.sql.asTenant(tenant_id, (tx) => tx.query<Row>(METERS_SQL, [tenant_id, ids]));
  const meters = new Map<string, MeterNaming>(
    rows.map((r) => [
      String(r.id),
      {
        type: r.type as MeterType,
        label: (r.label as string | null) ?? null,
        serial: (r.serial as string | null) ?? null,
        unit: String(r.unit),
        address: dwellingAddressOf(r.estate as Row | null, r.place as Row | null) ?? null,
      },
    ]),
  );
  const sender = configuration.sender;
  await queueMessage(platform, {
    tenant_id,
    message_id: deterministicUuid("meter-anomaly-alert", tenant_id, anomalies[0].reading_id),
    to,
    from: alertRecipients({ sender }).length > 0 ? { email: sender.email, name: sender.name } : null,
    ...meterAlertEmail(anomalies, meters),
    topic: "meter.anomaly",
    related: null,
    actor_key_id: request.auth?.key_id ?? null,
    correlation_id: String(request.id),
  });
}
