import { z } from "zod";
import { amendmentNoticeLoop } from "./commands/amendmentNotices/notify.ts";
import { computeDailyRoots, DAILY_ROOTS_QUEUE } from "./commands/audit/dailyRoots.ts";
import { bankCommandRoutes, bankSettlementLoop } from "./commands/bank/index.ts";
import { expenseCommandRoutes } from "./commands/books/expenses.ts";
import { bookCommandRoutes } from "./commands/books/index.ts";
import { mandateCommandRoutes } from "./commands/books/mandates.ts";
import { payoutCommandRoutes } from "./commands/books/payouts.ts";
import { chargeCommandRoutes, serviceCommandRoutes } from "./commands/charges/routes.ts";
import { chargeStatementLoop } from "./commands/charges/statementMessages.ts";
import { conditionReportRoutes } from "./commands/conditionReports/routes.ts";
import { contactEraseRoute } from "./commands/contacts/erase.ts";
import { contactRoutes } from "./commands/contacts/routes.ts";
import { creditCommandRoutes } from "./commands/credits/routes.ts";
import { depositCommandRoutes } from "./commands/deposits/routes.ts";
import { energyDiagnosisCommandRoutes } from "./commands/energyDiagnoses/routes.ts";
import { equipmentRoutes } from "./commands/equipment/routes.ts";
import { estateDiagnosticCommandRoutes } from "./commands/estateDiagnostics/routes.ts";
import { estateKeyCommandRoutes } from "./commands/estateKeys/routes.ts";
import { estateRoutes } from "./commands/estates/routes.ts";
import { inventoryRoutes } from "./commands/inventories/routes.ts";
import { leaseComplianceRoutes } from "./commands/leases/complianceRoutes.ts";
import { leaseDocumentRoutes } from "./commands/leases/documents.ts";
import { expireLeases, LEASE_EXPIRY_QUEUE } from "./commands/leases/expire.ts";
import { guaranteeActRoutes } from "./commands/leases/guarantees.ts";
import {
  generateLeasePdf,
  generateLeasePdfs,
  leasePdfCommandRoutes,
  leasePdfErasure,
} from "./commands/leases/pdfs.ts";
import { leaseMovingCommandRoutes } from "./commands/leases/routes/moving.ts";
import { leaseCommandRoutes } from "./commands/leases/routes.ts";
import { lesseeEraseRoutes, RETENTION_QUEUE, runRetention } from "./commands/lessees/erase.ts";
import { lesseeCommandRoutes } from "./commands/lessees/routes.ts";
import { mediaCommandRoutes } from "./commands/media/routes.ts";
import { messageCommandRoutes } from "./commands/messages/resolve.ts";
import { reportReadingsLoop } from "./commands/meters/reportReadings.ts";
import { meterCommandRoutes } from "./commands/meters/routes.ts";
import { ownerEraseRoute } from "./commands/owners/erase.ts";
import { ownerRoutes } from "./commands/owners/routes.ts";
import { placeRoutes } from "./commands/places/routes.ts";
import { receiptRoutes } from "./commands/rentCollection/receipts.ts";
import { RENT_REMINDERS_QUEUE, sendRentReminders } from "./commands/rentCollection/reminders.ts";
import { rentMessagesLoop } from "./commands/rentCollection/rentMessages.ts";
import { sendRevisionLetters } from "./commands/rentCollection/revisionLetters.ts";
import {
  FIRST_RENT_CALLS_QUEUE,
  issueRentCalls,
  RENT_CALLS_QUEUE,
} from "./commands/rentCycle/issueRentCalls.ts";
import { rentCycleCommandRoutes } from "./commands/rentCycle/routes.ts";
import { rentRegulationCommandRoutes } from "./commands/rentRegulation/routes.ts";
import { roomRoutes } from "./commands/rooms/routes.ts";
import { settingsCommandRoutes } from "./commands/settings/routes.ts";
import { annexCommandRoutes } from "./commands/signing/annexes.ts";
import { signingErasure } from "./commands/signing/erase.ts";
import { signingLoop } from "./commands/signing/loop.ts";
import { signatureCommandRoutes } from "./commands/signing/signature.ts";
import { syndicCommandRoutes } from "./commands/syndic/routes.ts";
import { typeRoutes } from "./commands/types/routes.ts";
import { webhookLoop } from "./commands/webhooks/deliver.ts";
import { webhookCommandRoutes } from "./commands/webhooks/routes.ts";
import { UPCASTERS } from "./events/upcasters.ts";
import { legalToday } from "./law/calendar.ts";
import { type Area, erasuresOf } from "./platform/area.ts";
import { registerUpcasters } from "./platform/eventstore/upcast.ts";
import { isoDate, uuid } from "./platform/http/schemas.ts";
import { areaJob } from "./platform/jobs.ts";
import { eraseMessagesOf } from "./platform/outbox/eraseMessages.ts";
import { messagesProjection } from "./platform/outbox/messagesProjection.ts";
import { outboxLoop } from "./platform/outbox/outboxLoop.ts";
import { provideContractPrinter } from "./platform/pdf/contractPrinter.ts";
import type { SubjectErasure } from "./platform/personalData/erasure.ts";
import { amendmentNoticesProjection } from "./projections/amendmentNotices.ts";
import { bankProjections } from "./projections/bank/index.ts";
import { booksProjection } from "./projections/books/index.ts";
import { chargeStatementMessagesProjection } from "./projections/chargeStatementMessages.ts";
import { chargeProjections } from "./projections/charges.ts";
import { conditionReportsProjection } from "./projections/conditionReports.ts";
import { contactsProjection } from "./projections/contacts.ts";
import { creditTransactionsProjection } from "./projections/credits.ts";
import { depositsProjection } from "./projections/deposits.ts";
import { energyDiagnosesProjection, estateCurrentDpeProjection } from "./projections/energyDiagnoses.ts";
import { equipmentProjection } from "./projections/equipment.ts";
import { estateDiagnosticsProjection } from "./projections/estateDiagnostics.ts";
import { estateKeysProjection, keyHandoversProjection } from "./projections/estateKeys.ts";
import { estatesProjection } from "./projections/estates.ts";
import { inventoriesProjection } from "./projections/inventories.ts";
import { leaseNoticesProjection } from "./projections/leaseNotices.ts";
import { leasePdfsProjection } from "./projections/leasePdfs.ts";
import { leaseProjections } from "./projections/leases.ts";
import { lesseeProjections } from "./projections/lessees.ts";
import { mediaProjection } from "./projections/media.ts";
import { meterReadingsOfReportsProjection } from "./projections/meterReadingsOfReports.ts";
import { metersProjection } from "./projections/meters.ts";
import { ownersProjection } from "./projections/owners.ts";
import { placesProjection } from "./projections/places.ts";
import { rentCallMessagesProjection } from "./projections/rentCallMessages.ts";
import { rentRemindersProjection } from "./projections/rentCollection.ts";
import { rentCycleProjection } from "./projections/rentCycle.ts";
import { rentRegulationProjections } from "./projections/rentRegulation.ts";
import { roomsProjection } from "./projections/rooms.ts";
import { settingsProjections } from "./projections/settings.ts";
import { signingProjections } from "./projections/signing.ts";
import { syndicBudgetsProjection } from "./projections/syndic.ts";
import { tenantTypesProjection } from "./projections/types.ts";
import { webhooksProjection } from "./projections/webhooks.ts";
import { auditQueryRoutes } from "./queries/audit.ts";
import { auditConsolePages } from "./queries/auditConsole/index.ts";
import { bankQueries } from "./queries/bank/index.ts";
import { bookQueryRoutes, ownerBookQueryRoutes, payoutRoutes } from "./queries/books/index.ts";
import { chargeQueryRoutes, serviceQueries } from "./queries/charges.ts";
import { conditionReportQueries } from "./queries/conditionReports.ts";
import { contactExport, contactQueries } from "./queries/contacts.ts";
import { creditQueries } from "./queries/credits.ts";
import { depositQueries } from "./queries/deposits.ts";
import { energyDiagnosisQueryRoutes } from "./queries/energyDiagnoses.ts";
import { equipmentQueries } from "./queries/equipment.ts";
import { estateDiagnosticQueryRoutes } from "./queries/estateDiagnostics.ts";
import { estateKeyQueries } from "./queries/estateKeys.ts";
import { estateQueries } from "./queries/estates.ts";
import { inventoryQueries } from "./queries/inventories.ts";
import { leaseNoticeQueries } from "./queries/leaseNotices.ts";
import { leasePdfQueryRoutes } from "./queries/leasePdfs.ts";
import { leaseQueryRoutes } from "./queries/leaseRoutes.ts";
import { leaseTypeQueries } from "./queries/leaseTypes.ts";
import { lesseePrivacyQueryRoutes } from "./queries/lesseePrivacy.ts";
import { lesseeSpaceQueries } from "./queries/lesseeSpace.ts";
import { lesseeQueryRoutes } from "./queries/lessees.ts";
import { mediaFileRoutes, mediaQueries } from "./queries/media.ts";
import { messageQueryRoutes } from "./queries/messages.ts";
import { meterQueryRoutes } from "./queries/meters.ts";
import { ownerExport, ownerQueries } from "./queries/owners.ts";
import { placeQueries } from "./queries/places.ts";
import { portalPages } from "./queries/portal/index.ts";
import { rentCollectionQueries } from "./queries/rentCollection.ts";
import { rentCycleQueryRoutes } from "./queries/rentCycle.ts";
import { rentNoticeQueries } from "./queries/rentNotice.ts";
import { rentRegulationQueryRoutes } from "./queries/rentRegulation.ts";
import { roomQueries } from "./queries/rooms.ts";
import { settingsQueries } from "./queries/settings.ts";
import { signingQueryRoutes } from "./queries/signing.ts";
import { syndicQueryRoutes } from "./queries/syndic.ts";
import { typeQueries } from "./queries/types.ts";
import { webhookQueryRoutes } from "./queries/webhooks.ts";

/**
 * The composition root's list of areas (the platform knows none: src/platform/area.ts): every
 * area of the service, its HTTP routes (commands and queries) and its projections. An area adds
 * one entry here.
 */
export type { Area };

/** Every area's erasures: run by each erasure of a lessee, owner or contact (docs/personal-data.md). */
export const subjectErasures = (): SubjectErasure[] => erasuresOf(areas);

// Old shapes of the areas' events, read current by every event store (docs/audit.md, "Upcasting").
registerUpcasters(UPCASTERS);

/**
 * Lease expiry (docs/leases.md): daily, and on demand. A given date may not be after today: a
 * worker key belongs to one tenant, and expiry runs across tenants, so on demand it may only do
 * what today's scheduled run would (docs/decisions.md, "Workers area").
 */
const leaseExpiryJob = areaJob({
  queue: LEASE_EXPIRY_QUEUE,
  description:
    "Brings every ACTIVE lease whose end date is before the date (default today, Europe/Paris) to its term: mobility and student leases expire, unfurnished and furnished ones are renewed tacitly",
  cron: "5 0 * * *",
  input: z.strictObject({
    date: isoDate.refine((date) => date <= legalToday(), "must not be after today (Europe/Paris)").optional(),
  }),
  // Counts only: the job's output is readable by the asking tenant, the leases are of every tenant.
  run: async (deps, { date }) => {
    const done = await expireLeases(deps, date);
    return { expired: done.expired.length, renewed: done.renewed.length };
  },
});

/**
 * Contract PDFs for a batch of leases (docs/pdf.md), for the tenant of the worker key that asked
 * (docs/decisions.md, "Workers area"): a lease of another tenant is reported failed, as unknown.
 */
const leasePdfBatchJob = areaJob({
  queue: "lease-pdf-batch",
  description: "Generates the contract PDF of each listed lease of the worker key's tenant (1 to 500)",
  input: z.strictObject({ lease_ids: z.array(uuid()).min(1).max(500) }),
  timeoutSeconds: 3600,
  run: async (deps, { lease_ids }, { tenant_id }) => {
    if (!tenant_id)
      throw new Error(
        "A lease PDF batch acts for one tenant: queue it with a worker key (pms jobs run: --tenant)",
      );
    return generateLeasePdfs(deps, { tenant_id, lease_ids });
  },
});

/**
 * Rent calls (docs/rent-cycle.md): daily, every period of every ACTIVE or NOTICE lease that has
 * started and has no call; a second run the same day writes nothing. On demand a worker key's run
 * covers its own tenant's leases only (docs/decisions.md, "Workers area").
 */
const rentCallsJob = areaJob({
  queue: RENT_CALLS_QUEUE,
  description:
    "Issues the rent call of every period that has started (by the date, default today, Europe/Paris) and has none, for every ACTIVE or NOTICE lease",
  cron: "20 0 * * *",
  input: z.strictObject({
    date: isoDate.refine((date) => date <= legalToday(), "must not be after today (Europe/Paris)").optional(),
  }),
  timeoutSeconds: 3600,
  run: (deps, { date }, { tenant_id }) => issueRentCalls(deps, { today: date, tenantId: tenant_id }),
});

/**
 * The first call of a newly activated lease (docs/design.md §7.1 "on activation"): every minute, the
 * leases ACTIVE or NOTICE with no call yet (an anti-join on the read models, empty most minutes),
 * so activation needs no change to the lease commands and a crash only delays it to the next minute.
 */
const firstRentCallsJob = areaJob({
  queue: FIRST_RENT_CALLS_QUEUE,
  description:
    "Issues the first rent calls of leases activated since the last run (ACTIVE or NOTICE, no call yet)",
  cron: "* * * * *",
  input: z.strictObject({}),
  run: (deps, _input, { tenant_id }) => issueRentCalls(deps, { uncalledOnly: true, tenantId: tenant_id }),
});

/**
 * Rent reminders (docs/rent-cycle.md, "Reminders"): daily at 07:00 UTC for every tenant, and on
 * demand for the worker key's tenant. `dry_run` lists what would be sent and writes nothing. A
 * scheduled run spans tenants, so its output is counts only; a tenant's run lists its reminders.
 */
const rentRemindersJob = areaJob({
  queue: RENT_REMINDERS_QUEUE,
  description:
    "Sends the next reminder level due for each unpaid rent call (at most once per call and level, 24 h apart, never once paid, no fee: loi n° 89-462 art. 4 i, p); dry_run lists them and writes nothing",
  cron: "0 7 * * *",
  input: z.strictObject({
    dry_run: z.boolean().optional().describe("List what would be sent; send and write nothing"),
  }),
  run: async (deps, { dry_run }, { tenant_id }) => {
    const reminders = await sendRentReminders(deps, { dry_run: dry_run ?? false, tenant_id });
    // The yearly IRL revision letters of the day (art. 17-1, docs/messages.md).
    const revision_letters = dry_run ? 0 : (await sendRevisionLetters(deps, { tenant_id })).length;
    const run = { ...reminders, revision_letters };
    if (tenant_id) return run;
    return {
      revision_letters,
      dry_run: run.dry_run,
      today: run.today,
      sent: run.sent.length,
      skipped: run.skipped.length,
      failed: run.failed.length,
      requeued: run.requeued,
    };
  },
});

/**
 * Daily roots of the log (docs/audit.md): each night, per tenant, the Merkle root over the heads of
 * the streams written the day before. Spans tenants: its output is counts only.
 */
const dailyRootsJob = areaJob({
  queue: DAILY_ROOTS_QUEUE,
  description:
    "Records the heads of the streams written since the last run and closes every day before the date (default today, Europe/Paris) with its root per tenant",
  cron: "30 23 * * *",
  input: z.strictObject({
    date: isoDate.refine((date) => date <= legalToday(), "must not be after today (Europe/Paris)").optional(),
  }),
  timeoutSeconds: 3600,
  run: async (deps, { date }) => {
    const run = await computeDailyRoots(deps, { today: date });
    return { events: run.events, closed: run.closed.length };
  },
});

/**
 * The retention job (docs/personal-data.md): daily, lists the lessees whose legal retention is over;
 * `erase: true` erases them (GDPR art. 5(1)(e), art. 17). A worker key's run covers its tenant only.
 */
const retentionJob = areaJob({
  queue: RETENTION_QUEUE,
  description:
    "Lists the lessees whose legal retention is over (no lease in progress, nothing unpaid, 3 years after the last lease: loi n° 89-462 art. 7-1); erase: true erases their personal data (GDPR art. 17)",
  cron: "40 3 * * *",
  input: z.strictObject({
    erase: z.boolean().optional().describe("Erase them too (default: list only)"),
  }),
  timeoutSeconds: 3600,
  run: (deps, { erase }, { tenant_id }) => runRetention(deps, { erase: erase ?? false, tenantId: tenant_id }),
});

// Signing prints the current contract when none exists (src/platform/pdf/contractPrinter.ts).
provideContractPrinter(generateLeasePdf);

export const areas: Area[] = [
  { name: "lessees", routes: [lesseeCommandRoutes, lesseeQueryRoutes], projections: lesseeProjections },
  { name: "places", routes: [placeRoutes, placeQueries], projections: [placesProjection] },
  { name: "types", routes: [typeRoutes, typeQueries], projections: [tenantTypesProjection] },
  {
    name: "owners",
    routes: [ownerRoutes, ownerQueries, ownerEraseRoute, ownerExport],
    projections: [ownersProjection],
  },
  { name: "estates", routes: [estateRoutes, estateQueries], projections: [estatesProjection] },
  { name: "rooms", routes: [roomRoutes, roomQueries], projections: [roomsProjection] },
  {
    name: "media",
    routes: [mediaCommandRoutes, mediaQueries, mediaFileRoutes],
    projections: [mediaProjection],
  },
  {
    name: "energyDiagnoses",
    routes: [energyDiagnosisCommandRoutes, energyDiagnosisQueryRoutes],
    projections: [energyDiagnosesProjection, estateCurrentDpeProjection],
  },
  {
    name: "estateDiagnostics",
    routes: [estateDiagnosticCommandRoutes, estateDiagnosticQueryRoutes],
    projections: [estateDiagnosticsProjection],
  },
  {
    name: "rentRegulation",
    routes: [rentRegulationCommandRoutes, rentRegulationQueryRoutes],
    projections: rentRegulationProjections,
  },
  // Lease Types (docs/specification.md, docs/design.md §7.0b): the law's regimes, read-only, no projection.
  { name: "leaseTypes", routes: [leaseTypeQueries], projections: [] },
  {
    name: "leases",
    routes: [leaseCommandRoutes, leaseDocumentRoutes, leaseQueryRoutes, leaseComplianceRoutes],
    projections: leaseProjections,
    jobs: [leaseExpiryJob, leasePdfBatchJob],
  },
  {
    name: "leasePdfs",
    routes: [leasePdfCommandRoutes, leasePdfQueryRoutes, guaranteeActRoutes],
    projections: [leasePdfsProjection],
    erasures: [leasePdfErasure],
  },
  {
    name: "contacts",
    routes: [contactRoutes, contactQueries, contactEraseRoute, contactExport],
    projections: [contactsProjection],
  },
  // Configurations and templates (docs/design.md §7.1, docs/settings.md).
  { name: "settings", routes: [settingsCommandRoutes, settingsQueries], projections: settingsProjections },
  // The lessee's own space (docs/design.md §7.0): a filter over the leases' queries, no projection.
  { name: "lesseeSpace", routes: [lesseeSpaceQueries], projections: [] },
  {
    name: "rentCycle",
    routes: [rentCycleCommandRoutes, rentCycleQueryRoutes],
    projections: [rentCycleProjection],
    jobs: [rentCallsJob, firstRentCallsJob],
  },
  // The books (docs/accounting.md): a ledger per lessor posted from the money events.
  {
    name: "books",
    routes: [
      bookCommandRoutes,
      mandateCommandRoutes,
      expenseCommandRoutes,
      payoutCommandRoutes,
      bookQueryRoutes,
      ownerBookQueryRoutes,
      payoutRoutes,
    ],
    projections: [booksProjection],
  },
  // Receipts, reminders and arrears of the rent cycle (docs/design.md §7.1): on the lease account stream.
  {
    name: "rentCollection",
    routes: [receiptRoutes, rentCollectionQueries, rentNoticeQueries],
    projections: [rentRemindersProjection, rentCallMessagesProjection],
    jobs: [rentRemindersJob],
    // Avis and quittances emailed (docs/messages.md): a reaction queueing messages, before the deliverer.
    loops: [rentMessagesLoop],
  },
  // Amendment notices (docs/messages.md): a reaction queueing messages, before the deliverer.
  {
    name: "amendmentNotices",
    routes: [],
    projections: [amendmentNoticesProjection],
    loops: [amendmentNoticeLoop],
  },
  // The outbox (docs/messages.md): status routes, the read model, the deliverer.
  {
    name: "messages",
    routes: [messageCommandRoutes, messageQueryRoutes],
    projections: [messagesProjection],
    loops: [outboxLoop],
    erasures: [{ erase: eraseMessagesOf }],
  },
  // Outbound webhooks (docs/webhooks.md): subscriptions, the deliveries the log gives, the deliverer.
  {
    name: "webhooks",
    routes: [webhookCommandRoutes, webhookQueryRoutes],
    projections: [webhooksProjection],
    loops: [webhookLoop],
  },
  // Credits and the payment provider's webhook (docs/design.md §7.2, docs/credits.md).
  {
    name: "credits",
    routes: [creditCommandRoutes, creditQueries],
    projections: [creditTransactionsProjection],
  },
  // Charges, distribution keys, freezes, regularisations and services of a place (docs/design.md §7.4, docs/charges.md).
  {
    name: "charges",
    routes: [chargeCommandRoutes, chargeQueryRoutes, serviceCommandRoutes, serviceQueries],
    projections: [...chargeProjections, chargeStatementMessagesProjection],
    // The statement emailed a month before its balance is payable (art. 23, docs/messages.md).
    loops: [chargeStatementLoop],
  },
  // Signing a lease (docs/design.md §7.2, docs/signing.md): annexes, one-time password signatures, the
  // reaction that ends a process when its lease changes.
  {
    name: "signing",
    routes: [annexCommandRoutes, signatureCommandRoutes, signingQueryRoutes],
    projections: signingProjections,
    loops: [signingLoop],
    erasures: [signingErasure],
  },
  // Tamper evidence (docs/design.md §7.5, docs/audit.md): daily roots, the lease's hash-chained export.
  { name: "audit", routes: [auditQueryRoutes], projections: [], jobs: [dailyRootsJob] },
  // Meters and readings (docs/design.md §7.4, docs/charges.md "Meters").
  // Readings of signed condition reports go to their meters (docs/charges.md).
  {
    name: "meters",
    routes: [meterCommandRoutes, meterQueryRoutes],
    projections: [metersProjection, meterReadingsOfReportsProjection],
    loops: [reportReadingsLoop],
  },
  // Syndic budgets and fund calls (docs/design.md §7.4, docs/charges.md "Syndic").
  {
    name: "syndic",
    routes: [syndicCommandRoutes, syndicQueryRoutes],
    projections: [syndicBudgetsProjection],
  },
  // Moving in and out (docs/design.md §7.3, docs/moving.md): equipment of rooms, condition reports, inventories.
  { name: "equipment", routes: [equipmentRoutes, equipmentQueries], projections: [equipmentProjection] },
  {
    name: "conditionReports",
    routes: [conditionReportRoutes, conditionReportQueries],
    projections: [conditionReportsProjection],
  },
  { name: "inventories", routes: [inventoryRoutes, inventoryQueries], projections: [inventoriesProjection] },
  // Moving in and out (docs/design.md §7.3, docs/moving.md): keys, notices, termination, deposit.
  {
    name: "moving",
    routes: [
      estateKeyCommandRoutes,
      estateKeyQueries,
      leaseMovingCommandRoutes,
      leaseNoticeQueries,
      depositCommandRoutes,
      depositQueries,
    ],
    projections: [estateKeysProjection, keyHandoversProjection, leaseNoticesProjection, depositsProjection],
  },
  // Personal data (docs/personal-data.md): erasure, export, the retention job.
  {
    name: "privacy",
    routes: [lesseeEraseRoutes, lesseePrivacyQueryRoutes],
    projections: [],
    jobs: [retentionJob],
  },
  // The pages people use (docs/portal.md): the tenant's portal and the auditor's console, each
  // built on the API's own answers, called in-process with the person's own credential.
  { name: "portal", routes: [portalPages], projections: [] },
  { name: "auditConsole", routes: [auditConsolePages], projections: [] },
  // Money in from the bank (docs/design.md §7.7, docs/bank.md): accounts, statements, matching.
  {
    name: "bank",
    routes: [...bankCommandRoutes, ...bankQueries],
    projections: bankProjections,
    loops: [bankSettlementLoop],
  },
];
