import type { Sql } from "../platform/db.ts";

// placeholder: replaced by the condition reports area at merge

/**
 * Whether a lease's SIGNED exit condition report matches its entry report room by room: true when
 * every element's condition is the entry's, false otherwise, null when the lease has no SIGNED EXIT
 * report of that id.
 */
export async function exitReportMatchesEntry(
  _db: Sql,
  _tenantId: string,
  _leaseId: string,
  _exitReportId: string,
): Promise<boolean | null> {
  return null;
}
