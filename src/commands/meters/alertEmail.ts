import type { MeterAnomaly, MeterType } from "../../events/meters.ts";
import { DEFAULT_SENDER_EMAIL } from "../../events/settings.ts";
import { frenchDate } from "../../platform/frenchText.ts";
import { formatNumber } from "../../platform/pdf/renderTemplate.ts";

/** At most this many anomalies are listed in one alert (the rest are counted). */
export const LISTED = 50;

const TYPE_NAMES: Record<MeterType, string> = {
  ELECTRICITY: "électricité",
  GAS: "gaz",
  WATER_HOT: "eau chaude",
  WATER_COLD: "eau froide",
  HEATING: "chauffage",
  COOLING: "climatisation",
};

/** How a person recognises a meter: its kind, its label or serial number, its dwelling. */
export interface MeterNaming {
  type: MeterType;
  label: string | null;
  serial: string | null;
  unit: string;
  address: string | null;
}

/**
 * Where an alert goes: the addresses the tenant configured (`alert_emails`), else its sender's.
 * The built-in sender address is nobody's (`.invalid`): with nothing configured, no alert goes.
 */
export function alertRecipients(configuration: {
  alert_emails?: string[];
  sender: { name: string; email: string };
}): { email: string; name: string | null }[] {
  if (configuration.alert_emails && configuration.alert_emails.length > 0)
    return configuration.alert_emails.map((email) => ({ email, name: null }));
  if (configuration.sender.email === DEFAULT_SENDER_EMAIL) return [];
  return [{ email: configuration.sender.email, name: configuration.sender.name }];
}

const meterName = (m: MeterNaming | undefined) => {
  if (!m) return "Compteur";
  const id = m.label ?? (m.serial ? `n° ${m.serial}` : null);
  return [`Compteur ${TYPE_NAMES[m.type]}`, id, m.address ? `(${m.address})` : null]
    .filter(Boolean)
    .join(" ");
};

/** The alert's subject and text: French, figures formatted, no id. */
export function meterAlertEmail(
  anomalies: readonly MeterAnomaly[],
  meters: ReadonlyMap<string, MeterNaming>,
): { subject: string; text: string } {
  const lines = anomalies.slice(0, LISTED).map((a) => {
    const m = meters.get(a.meter_id);
    const unit = m ? ` ${m.unit}` : "";
    return `- ${meterName(m)}, relevé du ${frenchDate(a.read_on)} : index ${formatNumber(a.value)}, ${formatNumber(a.daily_consumption)}${unit} par jour contre ${formatNumber(a.average_daily_consumption)}${unit} en moyenne`;
  });
  if (anomalies.length > LISTED) lines.push(`- et ${anomalies.length - LISTED} autre(s) relevé(s)`);
  return {
    subject:
      anomalies.length === 1
        ? "Consommation anormale : 1 relevé de compteur"
        : `Consommation anormale : ${anomalies.length} relevés de compteur`,
    text: [
      "Bonjour,",
      "",
      "Ces relevés de compteur montrent une consommation journalière qui s'écarte de plus de 50 % de la moyenne des relevés précédents (relevés estimés exclus).",
      "Ils sont enregistrés et signalés comme anormaux : vérifiez une éventuelle fuite, une erreur de lecture ou un changement d'usage.",
      "",
      ...lines,
      "",
    ].join("\n"),
  };
}
