import { lesseeStream } from "../../events/lessees.ts";
import { addDays, legalToday } from "../../law/calendar.ts";
import { periodStartOn } from "../../law/leaseTypes.ts";
import {
  latestAnniversary,
  quarterPlus,
  REVISION_LETTER_LATE_DAYS,
  rentFreezeVerdict,
} from "../../law/rent.ts";
import type { Sql } from "../../platform/db.ts";
import type { EventStore } from "../../platform/eventstore/eventStore.ts";
import { isoDay } from "../../platform/formatDates.ts";
import { deterministicUuid } from "../../platform/ids.ts";
import { queueMessage } from "../../platform/outbox/queueMessage.ts";
import { formatEuro, formatNumber, longDate } from "../../platform/pdf/renderTemplate.ts";
import { readDpeSummaryOn, readIndexReference, readLeaseTerms } from "../../queries/leaseCompliance.ts";
import { readLetterFacts } from "../../queries/rentDocuments.ts";
import { irlRentRevision } from "../../queries/rentRegulation.ts";
import { findConfiguration } from "../../queries/settings.ts";

/**
 * The yearly IRL revision letter (docs/messages.md, "Revision letter"), run by the daily
 * rent-reminders job: for each lease in force whose anniversary came in the last 7 days, when the
 * IRL allows a higher rent (art. 17-1 I: the rent × IRL(new quarter) / IRL(the quarter a year
 * before), each applied revision the next one's reference, a skipped year lost) and no F/G freeze
 * stops it, the tenants are told the revised rent, effective from the anniversary. One message per
 * lease and anniversary (its id hash(lease, anniversary)): never twice. The letter is the request;
 * the landlord records the revision itself (`PUT /api/leases/{id}/rent`).
 */

export const revisionLetterId = (leaseId: string, anniversary: string) =>
  deterministicUuid("irl-revision-letter", leaseId, anniversary);

const quarterName = (quarter: string) => {
  const n = Number(quarter.slice(-1));
  return `${n === 1 ? "1er" : `${n}e`} trimestre ${quarter.slice(0, 4)}`;
};

/** Leases in force on the IRL whose anniversary fell in the last days (SQL narrows, the law decides). */
const CANDIDATES = `
  SELECT tenant_id, id, start_date FROM leases
  WHERE status IN ('ACTIVE', 'NOTICE') AND lease_type <> 'MOBILITY'
    AND (revision_index_type IS NULL OR revision_index_type = 'IRL')
    AND start_date <= $1::date - interval '1 year'
    AND ($2::uuid IS NULL OR tenant_id = $2)
  ORDER BY tenant_id, id`;

/** The revision a lease allows on its anniversary, or null (none, unknown, frozen, not higher). */
async function revisionOf(sql: Sql, tenantId: string, leaseId: string, anniversary: string, year: number) {
  const lease = await readLeaseTerms(sql, tenantId, leaseId);
  if (!lease) return null;
  const current = (await readIndexReference(sql, tenantId, lease)).irl_reference_quarter;
  if (!current) return null;
  // The latest published same quarter: a year not revised is lost, never caught up (art. 17-1 I).
  for (let k = year; k >= 1; k--) {
    const next = quarterPlus(current, 4 * k);
    const found = await irlRentRevision(sql, quarterPlus(next, -4), next, lease.rent_amount);
    if (found.status !== "ok") continue;
    if (found.revision.capped_rent <= lease.rent_amount) return null;
    const dpe = await readDpeSummaryOn(sql, tenantId, lease.estate_id, anniversary);
    const freeze = rentFreezeVerdict({
      current_rent: lease.rent_amount,
      new_rent: found.revision.capped_rent,
      effective_date: anniversary,
      dpe,
      period_start: periodStartOn(lease, anniversary, lease.lessor),
    });
    return freeze.status === "FAIL" ? null : found.revision;
  }
  return null;
}

/** Queues the letters due today; the ids of those queued. */
export async function sendRevisionLetters(
  deps: { sql: Sql; store: EventStore },
  options: { tenant_id: string | null; now?: Date },
): Promise<string[]> {
  const today = legalToday(options.now ?? new Date());
  const queued: string[] = [];
  const leases = await deps.sql.query<{ tenant_id: string; id: string; start_date: unknown }>(CANDIDATES, [
    today,
    options.tenant_id,
  ]);
  for (const row of leases) {
    const anniversary = latestAnniversary(isoDay(row.start_date) ?? "", today);
    if (!anniversary || anniversary.on < addDays(today, -REVISION_LETTER_LATE_DAYS)) continue;
    const revision = await revisionOf(deps.sql, row.tenant_id, row.id, anniversary.on, anniversary.year);
    if (!revision) continue;
    const facts = await readLetterFacts(deps.sql, row.tenant_id, row.id);
    const to = (facts?.lessees ?? [])
      .filter((l) => l.email)
      .map((l) => ({ email: l.email, name: `${l.first_name} ${l.last_name}`.trim() || null }));
    if (!facts || to.length === 0) continue;
    const sender = (await findConfiguration(deps.sql, row.tenant_id))?.configuration.sender;
    const id = revisionLetterId(row.id, anniversary.on);
    const outcome = await queueMessage(deps, {
      tenant_id: row.tenant_id,
      message_id: id,
      to,
      from: sender ? { name: sender.name, email: sender.email } : null,
      subject: `Révision annuelle de votre loyer au ${longDate(anniversary.on)}`,
      text: `Madame, Monsieur,

Conformément à la clause de révision de votre bail du logement ${facts.estate.address} et à l'article 17-1 de la loi n° 89-462 du 6 juillet 1989, votre loyer hors charges est révisé à compter du ${longDate(anniversary.on)}, date anniversaire du bail :

- loyer actuel : ${formatEuro(revision.rent)}
- indice de référence des loyers (IRL) du ${quarterName(revision.reference.quarter)} : ${formatNumber(revision.reference.value)}
- IRL du ${quarterName(revision.new.quarter)} : ${formatNumber(revision.new.value)}
- loyer révisé : ${formatEuro(revision.capped_rent)} (${formatEuro(revision.rent)} × ${formatNumber(revision.new.value)} / ${formatNumber(revision.reference.value)}, arrondi au centime inférieur), soit ${formatEuro(revision.increase)} de plus par mois.

Les charges sont inchangées.

${facts.landlord.name}
`,
      topic: "rent-revision",
      related: { kind: "lease", id: row.id },
      data_subjects: facts.lessees.map((l) => lesseeStream(l.lessee_id)),
    });
    if (outcome.queued) queued.push(id);
  }
  return queued;
}
