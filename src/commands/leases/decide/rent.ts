import type { LeaseEvent, RentChangeReason, RentIndex } from "../../../events/leases.ts";
import { type LessorKind, periodStartOn } from "../../../law/leaseTypes.ts";
import {
  type DpeOn,
  FREEZE_FROM,
  indexCapVerdict,
  indexChainVerdict,
  indexRevisionVerdict,
  irlValuesVerdict,
  type PublishedIrl,
  rentFreezeVerdict,
  worksIncreaseVerdict,
} from "../../../law/rent.ts";
import { enforce, validationError } from "../../../platform/errors.ts";
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
};

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
