import { z } from "zod";
import type { ChargeCategory, ChargeTax, KeyKind, Regularisation } from "../law/charges.ts";
import { CHARGE_CATEGORIES } from "../law/charges.ts";
import { allEventTypes } from "../platform/decider.ts";
import { euros as centsOfEuros, isoDate, MAX_EUROS, text, uuid } from "../platform/http/schemas.ts";
import { defineResource, equals, type ResourceEvent } from "../platform/resource/resource.ts";

/**
 * Charges of a place (docs/design.md §7.4, docs/charges.md).
 *
 * - Stream `place_charges-<place uuid>`: the place's charges ledger, one aggregate holding its
 *   expenses, distribution keys and freezes, so "no charge inside a frozen period" is decided on one
 *   stream (a freeze and a charge written at once cannot both pass).
 * - Stream `lease_charges-<lease uuid>`: the lease's regularisations (art. 23), each with its figures
 *   as decided, so a statement reads the same whatever is recorded later.
 * - Services: service contracts of a place on the resource kit, stream `service_contract-<uuid>`.
 *
 * Amounts in events are euros with two decimals (as every other event); the law counts in cents.
 */

/** Euros: finite, at most two decimals; `min` 0 unless an adjusting entry may be negative. */
export const euros = (min = 0) => centsOfEuros({ min: min === 0 ? 0 : -MAX_EUROS });

export const placeChargesStream = (placeId: string) => `place_charges-${placeId.toLowerCase()}`;
export const leaseChargesStream = (leaseId: string) => `lease_charges-${leaseId.toLowerCase()}`;

export const KEY_KINDS = [
  "TANTIEMES",
  "SURFACE",
  "CONSUMPTION",
  "EQUAL",
] as const satisfies readonly KeyKind[];

export interface ChargeFields {
  category: ChargeCategory;
  /** TAXES_AND_FEES: which tax (décret 87-713 VIII); null otherwise (absent from earlier events). */
  tax?: ChargeTax | null;
  amount: number;
  period_from: string;
  period_to: string;
  label: string;
  invoice_media_id: string | null;
  distribution_key_id: string | null;
  /** An adjusting entry names the charge it corrects. */
  corrects_charge_id: string | null;
}

export interface KeyShare {
  estate_id: string;
  share: number;
}

export interface RegularisationRecord
  extends Omit<
    Regularisation,
    | "recoverable_total"
    | "lease_amount"
    | "provisions_called"
    | "balance"
    | "lines"
    | "excluded"
    | "instalments"
    | "place_split"
  > {
  regularisation_id: string;
  lease_id: string;
  place_id: string;
  estate_id: string;
  period_from: string;
  period_to: string;
  regularised_on: string;
  recoverable_total: number;
  lease_amount: number;
  provisions_called: number;
  balance: number;
  lines: (Omit<Regularisation["lines"][number], "place_amount" | "lease_amount"> & {
    place_amount: number;
    lease_amount: number;
  })[];
  excluded: (Omit<Regularisation["excluded"][number], "amount"> & { amount: number })[];
  instalments: { allowed: boolean; deadline: string; schedule: { month: string; amount: number }[] };
}

export type ChargesEvent =
  | { type: "ChargeRecorded"; data: { place_id: string; charge_id: string } & ChargeFields }
  | { type: "ChargeChanged"; data: { place_id: string; charge_id: string; changes: Partial<ChargeFields> } }
  | { type: "ChargeRemoved"; data: { place_id: string; charge_id: string } }
  | {
      type: "DistributionKeyDefined";
      data: { place_id: string; key_id: string; name: string; kind: KeyKind; shares: KeyShare[] };
    }
  | { type: "ChargesFrozen"; data: { place_id: string; freeze_id: string; from: string; to: string } };

export type RegularisationEvent = { type: "ChargesRegularised"; data: RegularisationRecord };

/** The place's charges stream by part, types of its union; the three lists together name every type of it. */
export const chargeEventTypes = [
  "ChargeRecorded",
  "ChargeChanged",
  "ChargeRemoved",
] as const satisfies readonly ChargesEvent["type"][];
export const keyEventTypes = ["DistributionKeyDefined"] as const satisfies readonly ChargesEvent["type"][];
export const freezeEventTypes = ["ChargesFrozen"] as const satisfies readonly ChargesEvent["type"][];
allEventTypes<ChargesEvent["type"]>()([...chargeEventTypes, ...keyEventTypes, ...freezeEventTypes]);
export const regularisationEventTypes = allEventTypes<RegularisationEvent["type"]>()(["ChargesRegularised"]);

/** The ledger as the commands decide on it. */
export interface ChargeLedger {
  charges: Map<string, ChargeFields & { removed: boolean }>;
  keys: Map<string, { name: string; kind: KeyKind; shares: KeyShare[] }>;
  freezes: { freeze_id: string; from: string; to: string }[];
}

export const emptyLedger = (): ChargeLedger => ({ charges: new Map(), keys: new Map(), freezes: [] });

/** The one fold of a place's ledger. */
export function evolveLedger(state: ChargeLedger, event: ChargesEvent): ChargeLedger {
  switch (event.type) {
    case "ChargeRecorded": {
      const { place_id: _, charge_id, ...fields } = event.data;
      const charges = new Map(state.charges).set(charge_id, { ...fields, removed: false });
      return { ...state, charges };
    }
    case "ChargeChanged": {
      const current = state.charges.get(event.data.charge_id);
      if (!current) return state;
      const charges = new Map(state.charges).set(event.data.charge_id, { ...current, ...event.data.changes });
      return { ...state, charges };
    }
    case "ChargeRemoved": {
      const current = state.charges.get(event.data.charge_id);
      if (!current) return state;
      return {
        ...state,
        charges: new Map(state.charges).set(event.data.charge_id, { ...current, removed: true }),
      };
    }
    case "DistributionKeyDefined": {
      const { key_id, name, kind, shares } = event.data;
      return { ...state, keys: new Map(state.keys).set(key_id, { name, kind, shares }) };
    }
    case "ChargesFrozen": {
      const { freeze_id, from, to } = event.data;
      return { ...state, freezes: [...state.freezes, { freeze_id, from, to }] };
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

/** The regularisations of a lease, as its decider needs them. */
export interface LeaseRegularisations {
  periods: { regularisation_id: string; from: string; to: string }[];
}

export function evolveRegularisations(
  state: LeaseRegularisations,
  event: RegularisationEvent,
): LeaseRegularisations {
  switch (event.type) {
    case "ChargesRegularised": {
      const { regularisation_id, period_from: from, period_to: to } = event.data;
      return { periods: [...state.periods, { regularisation_id, from, to }] };
    }
    default: {
      const _exhaustive: never = event.type;
      return _exhaustive;
    }
  }
}

// ---------------------------------------------------------------- services (resource kit)

export const SERVICE_KINDS = [
  "CLEANING",
  "ELEVATOR_MAINTENANCE",
  "HEATING_MAINTENANCE",
  "GREEN_SPACES",
  "WASTE_COLLECTION",
  "CARETAKER",
  "PEST_CONTROL",
  "OTHER",
] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** The heading of the décret's annex a service's recoverable part falls under. */
export const SERVICE_CATEGORY: Record<ServiceKind, ChargeCategory> = {
  CLEANING: "COMMON_AREAS",
  ELEVATOR_MAINTENANCE: "ELEVATORS",
  HEATING_MAINTENANCE: "WATER_AND_HEATING",
  GREEN_SPACES: "OUTDOOR_AREAS",
  WASTE_COLLECTION: "WASTE_AND_HYGIENE",
  CARETAKER: "COMMON_AREAS",
  PEST_CONTROL: "WASTE_AND_HYGIENE",
  OTHER: "MISC_EQUIPMENT",
};

export const SERVICE_FREQUENCIES = ["MONTHLY", "QUARTERLY", "ANNUALLY"] as const;

export const serviceResource = defineResource({
  name: "service",
  stream: (id) => `service_contract-${id}`,
  label: "ServiceContract",
  table: "service_contracts",
  path: "/api/places/:place_id/services",
  tag: "Charges",
  parent: "place",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesDelete" },
  fields: {
    kind: z.enum(SERVICE_KINDS),
    label: text(255).nullish(),
    provider_contact_id: uuid().nullish(),
    amount: euros().describe("Price per period, euros"),
    frequency: z.enum(SERVICE_FREQUENCIES),
    recoverable_share_percent: z.number().min(0).max(100).nullish(),
    recoverable_amount: euros()
      .nullish()
      .describe("Recoverable part per period, euros (instead of a percent)"),
    category: z
      .enum(CHARGE_CATEGORIES)
      .nullish()
      .describe("Heading of the décret 87-713 annex; default from kind"),
    distribution_key_id: uuid().nullish(),
    start_date: isoDate,
    end_date: isoDate.nullish(),
  },
  events: {
    created: "ServiceContractCreated",
    updated: "ServiceContractUpdated",
    deleted: "ServiceContractDeleted",
  },
  commands: {
    create: "CreateServiceContract",
    update: "UpdateServiceContract",
    delete: "DeleteServiceContract",
  },
  filters: { kind: equals("kind", z.enum(SERVICE_KINDS)) },
  invalidBodyMessage: "Invalid service contract data",
  history: true,
});

export type ServiceEvent = ResourceEvent<typeof serviceResource>;
