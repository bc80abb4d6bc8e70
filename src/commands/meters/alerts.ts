import type { FastifyRequest } from "fastify";
import type { MeterAnomaly, MeterEvent } from "../../events/meters.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import { readConfiguration } from "../../queries/settings.ts";

/** At most this many anomalies are listed in one alert (the rest are counted). */
const LISTED = 50;

/**
 * The consumption alert (docs/design.md §7.4): one email per request that raised anomalies, to the
 * tenant's sender address (its management mailbox), through the outbox. Its id derives from the
 * first anomalous reading, so a retried request queues it once. The outbound webhook
 * `meter.anomaly` comes from the log (src/projections/webhooks.ts), one per anomaly.
 */
export async function alertAnomalies(request: FastifyRequest, events: readonly MeterEvent[]): Promise<void> {
  const anomalies = events.flatMap((e): MeterAnomaly[] =>
    e.type === "MeterConsumptionAnomalyDetected" ? [e.data] : [],
  );
  if (anomalies.length === 0) return;
  const { platform } = request.server;
  const tenant_id = tenantOf(request);
  const { sender } = await readConfiguration(platform.sql, tenant_id);
  const lines = anomalies
    .slice(0, LISTED)
    .map(
      (a) =>
        `- meter ${a.meter_id}, reading of ${a.read_on}: index ${a.value}, ${a.daily_consumption} per day against an average of ${a.average_daily_consumption}`,
    );
  if (anomalies.length > LISTED) lines.push(`- and ${anomalies.length - LISTED} more`);
  await queueMessage(platform, {
    tenant_id,
    message_id: deterministicUuid("meter-anomaly-alert", tenant_id, anomalies[0].reading_id),
    to: [{ email: sender.email, name: sender.name }],
    subject: `Consumption anomaly: ${anomalies.length} reading(s)`,
    text: [
      "These meter readings show a daily consumption more than 50 % off the average of the earlier readings (estimated readings excluded).",
      "They are recorded and flagged `anomaly`; check for a leak, a misread or a changed use.",
      "",
      ...lines,
    ].join("\n"),
    topic: "meter.anomaly",
    related: null,
    actor_key_id: request.auth?.key_id ?? null,
    correlation_id: String(request.id),
  });
}
