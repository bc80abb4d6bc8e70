/**
 * Every stream category this service writes (the part of a stream name before its first `-`).
 * On EventStoreDB `$all` is the whole server's: events of other categories are another
 * application's and are skipped (docs/eventstoredb.md, "Events"). A new stream function in
 * src/events must add its category here; test/platform/streamCategories.test.ts checks it.
 */
export const STREAM_CATEGORIES = [
  "condition_report",
  "configuration",
  "contact",
  "credit_ledger",
  "energy_diagnosis",
  "equipment",
  "estate",
  "estate_diagnostics",
  "estate_key",
  "estate_rent_regulation",
  "irl",
  "key_handover",
  "lease",
  "lease_account",
  "lease_charges",
  "lease_inventory",
  "lease_deposit",
  "lease_occupancy",
  "lease_pdf",
  "lease_signing",
  "lessee",
  "lessee_email",
  "media",
  "meter",
  "message",
  "owner",
  "place",
  "place_charges",
  "place_rent_regulation",
  "receipt_counter",
  "room",
  "service_contract",
  "syndic_budget",
  "template",
  "type",
  "webhook_subscription",
] as const;
