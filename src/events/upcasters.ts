import type { Upcaster } from "../platform/eventstore/upcast.ts";
import { leaseUpcasters } from "./leases.ts";

/** Every area's upcasters (docs/audit.md, "Upcasting"): an area adds its list here. */
export const UPCASTERS: Upcaster[] = [...leaseUpcasters];
