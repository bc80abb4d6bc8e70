import { type LeaseTermFacts, type LessorKind, nextPeriodStartFrom, underLoi89 } from "./leaseTypes.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/** Decency by energy class (docs/compliance.md, "Decency calendar"). */

/** Décret n° 2002-120 art. 3 bis as amended (loi n° 2021-1104 art. 160): a class is not decent from a day. */
export const DECENCY_CALENDAR: readonly { label: string; from: string }[] = [
  { label: "G", from: "2025-01-01" },
  { label: "F", from: "2028-01-01" },
  { label: "E", from: "2034-01-01" },
];
const DECENCY = `${LOI_89}, art. 6; décret n° 2002-120 art. 3 bis; loi n° 2021-1104, art. 160`;

/**
 * Loi n° 2021-1104 art. 160 applies each step of the calendar to contracts concluded, renewed or
 * tacitly renewed from its date: a G dwelling let on 2024-12-31 for 3 years stays within the law
 * until its renewal on 2027-12-31. The verdict names the day the lease becomes non-compliant.
 */
export function decencyVerdict(input: {
  lease: LeaseTermFacts & { status: string };
  lessor?: LessorKind;
  /** The day judged. */
  on: string;
  /** The DPE valid on `on`, null when none. */
  dpe: { energy_label: string } | null;
}): Verdict {
  const rule = "DPE_DECENCY_CALENDAR";
  const { lease, dpe, on } = input;
  if (!underLoi89(lease.lease_type))
    return verdict(rule, "NOT_APPLICABLE", `A ${lease.lease_type} lease is outside loi n° 89-462`, DECENCY);
  if (lease.status === "TERMINATED" || lease.status === "EXPIRED")
    return verdict(rule, "NOT_APPLICABLE", "The lease has ended", DECENCY);
  if (!dpe) return verdict(rule, "UNKNOWN", `No DPE is valid on ${on}`, DECENCY);
  const step = DECENCY_CALENDAR.find((s) => s.label === dpe.energy_label);
  if (!step)
    return verdict(rule, "PASS", `Housing classed ${dpe.energy_label} is decent on ${on}`, DECENCY, {
      energy_label: dpe.energy_label,
      on,
      indecent_from: null,
      non_compliant_from: null,
    });
  const from = nextPeriodStartFrom(lease, step.from, input.lessor);
  const details = { energy_label: dpe.energy_label, on, indecent_from: step.from, non_compliant_from: from };
  if (from !== null && on >= from)
    return verdict(
      rule,
      "FAIL",
      `Housing classed ${dpe.energy_label} is not decent for a contract concluded or renewed from ${step.from}; this lease was ${from === lease.start_date ? "concluded" : "renewed"} on ${from} (${DECENCY})`,
      DECENCY,
      details,
    );
  const until =
    from === null
      ? `this lease is not renewed, so the calendar does not reach it`
      : `the lease becomes non-compliant at its ${from === lease.start_date ? "start" : "renewal"} on ${from}`;
  return verdict(
    rule,
    "PASS",
    `Housing classed ${dpe.energy_label} is not decent for contracts concluded or renewed from ${step.from}; ${until}`,
    DECENCY,
    details,
  );
}
