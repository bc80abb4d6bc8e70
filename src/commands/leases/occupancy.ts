// The occupancy rule lives with the lease events: the signing area activates leases too.
export { estateOccupancy, estateOccupancyOf } from "../../events/leaseOccupancy.ts";
