import type { LeaseEvent, RentChangeReason, RentIndex } from "../../../events/leases.ts";
import { addDays } from "../../../law/calendar.ts";
import { type LessorKind, periodStartOn, renewalMonths } from "../../../law/leaseTypes.ts";
import {
  type DpeOn,
  FREEZE_FROM,
  indexCapVerdict,
  indexChainVerdict,
  indexRevisionVerdict,
  irlValuesVerdict,
  type PublishedIrl,
  reevaluationVerdict,
  rentFreezeVerdict,
  worksIncreaseVerdict,
} from "../../../law/rent.ts";
import { LOI_89 } from "../../../law/verdict.ts";
import { enforce, unprocessable, validationError } from "../../../platform/errors.ts";
import { type LeaseState, type LiveLease, live, notEnded } from "./rules.ts";

/** A lease's rent: changes by agreement, index revision (art. 17-1), rent control or correction. */

/** The estate's DPE valid on the change's effective date (energy-diagnosis read model), null when none. */
export type DpeFact = DpeOn | null;

export interface RentChange {
  rent_amount: number;
  /** Absent: the charges stay as they are; null removes them. */
  charges_amount?: number | null;
  effective_date: string;
  reason: RentChangeReason;
  /** Required for an INDEX_REVISION. */
  index?: RentIndex;
  /** The day the lessor asked for an index revision (art. 17-1 I); absent: its effective date. */
  requested_on?: string;
  /** A WORKS_INCREASE: the clause agreeing on the works and whether they are completed (art. 17-1 II). */
  works?: { agreed_by_clause: boolean; works_completed: boolean };
  /** A REEVALUATION (art. 17-2): when it was proposed and the neighbourhood's rent. */
  reevaluation?: { proposed_on: string; neighbourhood_rent: number; renewal_months?: number };
}

export type RentCommand = {
  type: "ChangeRent";
  lease_id: string;
  rent: RentChange;
  dpe: DpeFact;
  /** Who lets (art. 10: 3- or 6-year renewals); absent: a natural person. */
  lessor?: LessorKind;
  /** The IRL data's values for the index quarters (docs/compliance.md); omitted: not looked up. */
  published_irl?: PublishedIrl;
  /** For a REEVALUATION: the estate's zone (its rent regulation); null: not recorded. */
  high_demand_zone?: boolean | null;
};

/** The last day the re-letting décret's yearly renewals cover (décret n° 2025-652): art. 5 with it. */
const REEVALUATION_DECREE_UNTIL = "2026-07-31";

/** Art. 17-2: a re-evaluation at a renewal, proposed 6 months ahead, capped, never on F or G. */
function checkReevaluation(lease: LiveLease, command: RentCommand, periodStart: string) {
  const { rent } = command;
  if (rent.reason !== "REEVALUATION") return;
  if (!rent.reevaluation)
    throw validationError("Invalid rent change", [
      { field: "reevaluation", message: "Required for a REEVALUATION" },
    ]);
  if (periodStart !== rent.effective_date || periodStart === lease.terms.start_date)
    throw unprocessable(
      `A re-evaluation takes effect on a renewal of the contract (${LOI_89}, art. 17-2): the period in force on ${rent.effective_date} began on ${periodStart}`,
      [{ field: "effective_date", message: "Not the first day of a renewal" }],
    );
  enforce(
    reevaluationVerdict({
      lease_type: lease.terms.lease_type,
      term: addDays(rent.effective_date, -1),
      proposed_on: rent.reevaluation.proposed_on,
      current_rent: lease.terms.rent_amount,
      proposed_rent: rent.rent_amount,
      neighbourhood_rent: rent.reevaluation.neighbourhood_rent,
      high_demand_zone: command.high_demand_zone === true,
      energy_label: command.dpe?.energy_label ?? null,
      renewal_months:
        rent.reevaluation.renewal_months ??
        renewalMonths(lease.terms.lease_type, command.lessor ?? "NATURAL_PERSON") ??
        36,
      decree_until: REEVALUATION_DECREE_UNTIL,
    }),
  );
}

/**
 * Art. 17-1: at most one index revision a year, with published values, following the revision chain
 * (the current reference, the anniversary, the request), within the index's variation.
 */
function checkIndexRevision(lease: LiveLease, command: RentCommand) {
  const { rent } = command;
  if (rent.index && command.published_irl) enforce(irlValuesVerdict(rent.index, command.published_irl));
  if (rent.reason !== "INDEX_REVISION" || !rent.index) return;
  const contract = lease.terms.revision_reference_quarter;
  enforce(
    indexChainVerdict({
      start_date: lease.terms.start_date,
      contract_quarter: contract,
      current_quarter: lease.index_reference_quarter ?? contract,
      index: rent.index,
      effective_date: rent.effective_date,
      requested_on: rent.requested_on ?? null,
    }),
  );
  enforce(
    indexCapVerdict({
      current_rent: lease.terms.rent_amount,
      new_rent: rent.rent_amount,
      reference_value: rent.index.reference_value,
      new_value: rent.index.new_value,
    }),
  );
}

function changeRent(command: RentCommand, state: LeaseState): LeaseEvent[] {
  const lease = live(state, command.lease_id);
  const { rent } = command;
  notEnded(lease, command.lease_id);
  if (rent.reason === "INDEX_REVISION" && !rent.index)
    throw validationError("Invalid rent change", [
      { field: "index", message: "Required for an INDEX_REVISION" },
    ]);
  const current = lease.terms.rent_amount;
  if (rent.reason === "INDEX_REVISION" && rent.index)
    enforce(
      indexRevisionVerdict({
        lease_type: lease.terms.lease_type,
        index_type: rent.index.type,
        effective_date: rent.effective_date,
        last_index_revision_on: lease.last_index_revision_on ?? null,
      }),
    );
  checkIndexRevision(lease, command);
  const periodStart = periodStartOn(lease.terms, rent.effective_date, command.lessor);
  checkReevaluation(lease, command, periodStart);
  if (rent.reason === "WORKS_INCREASE")
    enforce(
      worksIncreaseVerdict({
        agreed_by_clause: rent.works?.agreed_by_clause ?? false,
        works_completed: rent.works?.works_completed ?? false,
        // Art. 17-1 III reaches contracts concluded or renewed from 2022-08-24 (loi n° 2021-1104 art. 159).
        energy_label: periodStart >= FREEZE_FROM ? (command.dpe?.energy_label ?? null) : null,
      }),
    );
  enforce(
    rentFreezeVerdict({
      current_rent: current,
      new_rent: rent.rent_amount,
      effective_date: rent.effective_date,
      dpe: command.dpe,
      period_start: periodStart,
    }),
  );
  const charges = rent.charges_amount === undefined ? lease.terms.charges_amount : rent.charges_amount;
  return [
    {
      type: "LeaseRentChanged",
      data: {
        lease_id: command.lease_id,
        rent_amount: rent.rent_amount,
        charges_amount: charges,
        previous_rent_amount: current,
        previous_charges_amount: lease.terms.charges_amount,
        effective_date: rent.effective_date,
        reason: rent.reason,
        index: rent.index ?? null,
      },
    },
  ];
}

export const decideRent = changeRent;
