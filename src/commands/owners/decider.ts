import { type OwnerFields, ownerResource } from "../../events/owners.ts";
import { conflict, type ErrorDetail } from "../../platform/errors.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/**
 * Category rules on the full (merged) owner: names for individuals, a legal name for companies;
 * a legal form (FAMILY_SCI, loi n° 89-462 art. 13 a) only for a company.
 */
export function ownerCategoryDetails(owner: OwnerFields): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (owner.category === "individual") {
    if (!owner.first_name) details.push({ field: "first_name", message: "Required for an individual owner" });
    if (!owner.last_name) details.push({ field: "last_name", message: "Required for an individual owner" });
    if (owner.legal_name)
      details.push({ field: "legal_name", message: "Must be null for an individual owner" });
    if (owner.legal_form)
      details.push({ field: "legal_form", message: "Must be null for an individual owner" });
  } else if (!owner.legal_name) {
    details.push({ field: "legal_name", message: "Required for a company owner" });
  }
  return details;
}

/** estate_count: estates the owner currently owns (estates read model), looked up by the route. */
export type OwnerFacts = { delete: { estate_count: number } };

export const ownerDecider = resourceDecider<typeof ownerResource, OwnerFacts>(ownerResource, {
  check: ownerCategoryDetails,
  deletable({ owner_id, estate_count }) {
    if (estate_count > 0) throw conflict(`Cannot delete owner ${owner_id}: owns ${estate_count} estate(s)`);
  },
});
