import {
  type ChargeFields,
  type ChargeLedger,
  type ChargesEvent,
  emptyLedger,
  evolveLedger,
  evolveRegularisations,
  type KeyShare,
  type LeaseRegularisations,
  type RegularisationEvent,
  serviceResource,
} from "../../events/charges.ts";
import { addMonths, addYears } from "../../law/calendar.ts";
import {
  caretakerVerdict,
  DECRET_87_713_VIII,
  freezeVerdict,
  type KeyKind,
  type RegularisationFacts,
  regularise,
} from "../../law/charges.ts";
import { cents, toEuros } from "../../law/money.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, enforce, notFound, validationError } from "../../platform/errors.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** Deciders of the charges area (docs/charges.md): the place's ledger, the lease's regularisations, services. */

// ---------------------------------------------------------------- the ledger of a place

export type LedgerCommand =
  | { type: "RecordCharge"; place_id: string; charge_id: string; fields: ChargeFields }
  | { type: "ChangeCharge"; place_id: string; charge_id: string; changes: Partial<ChargeFields> }
  | { type: "RemoveCharge"; place_id: string; charge_id: string }
  | {
      type: "DefineDistributionKey";
      place_id: string;
      key_id: string;
      name: string;
      kind: KeyKind;
      shares: { estate_id: string; share: number | null }[];
      /** The place's estates and their floor area (m²), from the estates' read model. */
      estates: { id: string; area: number }[];
    }
  | { type: "FreezeCharges"; place_id: string; freeze_id: string; from: string; to: string };

const invalid = (details: ErrorDetail[]) => {
  if (details.length > 0) throw validationError("Invalid charge data", details);
};

const live = (ledger: ChargeLedger, chargeId: string) => {
  const charge = ledger.charges.get(chargeId);
  if (!charge || charge.removed) throw notFound("Charge", chargeId);
  return charge;
};

/** A frozen period is closed: 409, and the way out (an adjusting entry after it). */
const refuseFrozen = (ledger: ChargeLedger, from: string, to: string) => {
  const v = freezeVerdict({ from, to }, ledger.freezes);
  if (v.status === "FAIL") throw conflict(v.message, [{ field: "period", message: v.message }]);
};

/** The rules of a charge as it would stand: dates in order, a real amount, keys and corrections known. */
function checkCharge(ledger: ChargeLedger, chargeId: string, c: ChargeFields) {
  const details: ErrorDetail[] = [];
  if (c.period_from > c.period_to)
    details.push({ field: "period.to", message: "Must not be before period.from" });
  // Heading VIII is recovered by its tax: the charge names it (décret 87-713 VIII), and only there.
  if (c.category === "TAXES_AND_FEES" && !c.tax)
    details.push({
      field: "tax",
      message: `Required for TAXES_AND_FEES: TEOM, REOM, TAXE_BALAYAGE or OTHER (${DECRET_87_713_VIII})`,
    });
  if (c.category !== "TAXES_AND_FEES" && c.tax)
    details.push({ field: "tax", message: "Only a TAXES_AND_FEES charge names a tax" });
  if (c.corrects_charge_id === null && c.amount <= 0)
    details.push({
      field: "amount",
      message: "Must be > 0 (a negative amount is an adjusting entry: set corrects_charge_id)",
    });
  if (c.corrects_charge_id !== null && c.amount === 0)
    details.push({ field: "amount", message: "An adjusting entry must not be 0" });
  if (c.distribution_key_id !== null && !ledger.keys.has(c.distribution_key_id))
    details.push({
      field: "distribution_key_id",
      message: `Distribution key ${c.distribution_key_id} is not one of this place's`,
    });
  if (c.corrects_charge_id !== null) {
    const corrected = ledger.charges.get(c.corrects_charge_id);
    if (!corrected || corrected.removed || c.corrects_charge_id === chargeId)
      details.push({
        field: "corrects_charge_id",
        message: `Charge ${c.corrects_charge_id} is not a charge of this place`,
      });
  }
  invalid(details);
}

const recordCharge = (
  c: Extract<LedgerCommand, { type: "RecordCharge" }>,
  ledger: ChargeLedger,
): ChargesEvent[] => {
  if (ledger.charges.has(c.charge_id)) throw conflict(`Charge ${c.charge_id} already exists`);
  checkCharge(ledger, c.charge_id, c.fields);
  refuseFrozen(ledger, c.fields.period_from, c.fields.period_to);
  return [{ type: "ChargeRecorded", data: { place_id: c.place_id, charge_id: c.charge_id, ...c.fields } }];
};

const changeCharge = (
  c: Extract<LedgerCommand, { type: "ChangeCharge" }>,
  ledger: ChargeLedger,
): ChargesEvent[] => {
  const { removed: _, ...current } = live(ledger, c.charge_id);
  const changes = Object.fromEntries(
    Object.entries(c.changes).filter(
      ([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof ChargeFields]),
    ),
  ) as Partial<ChargeFields>;
  const merged = { ...current, ...changes };
  checkCharge(ledger, c.charge_id, merged);
  // Both the period it had and the one it would have: neither may be closed.
  refuseFrozen(ledger, current.period_from, current.period_to);
  refuseFrozen(ledger, merged.period_from, merged.period_to);
  return [{ type: "ChargeChanged", data: { place_id: c.place_id, charge_id: c.charge_id, changes } }];
};

const removeCharge = (
  c: Extract<LedgerCommand, { type: "RemoveCharge" }>,
  ledger: ChargeLedger,
): ChargesEvent[] => {
  const current = live(ledger, c.charge_id);
  refuseFrozen(ledger, current.period_from, current.period_to);
  const correcting = [...ledger.charges.entries()].find(
    ([, x]) => !x.removed && x.corrects_charge_id === c.charge_id,
  );
  if (correcting)
    throw conflict(`Charge ${c.charge_id} is corrected by charge ${correcting[0]}: remove that first`);
  return [{ type: "ChargeRemoved", data: { place_id: c.place_id, charge_id: c.charge_id } }];
};

/** A key's shares: the place's estates, each once, each share > 0 (surface defaults to the estate's area). */
function defineKey(
  c: Extract<LedgerCommand, { type: "DefineDistributionKey" }>,
  ledger: ChargeLedger,
): ChargesEvent[] {
  if (ledger.keys.has(c.key_id)) throw conflict(`Distribution key ${c.key_id} already exists`);
  const areas = new Map(c.estates.map((e) => [e.id, e.area]));
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const shares: KeyShare[] = c.shares.map((s, i) => {
    if (!areas.has(s.estate_id))
      details.push({
        field: `shares[${i}].estate_id`,
        message: `Estate ${s.estate_id} is not an estate of place ${c.place_id}`,
      });
    if (seen.has(s.estate_id)) details.push({ field: `shares[${i}].estate_id`, message: "Listed twice" });
    seen.add(s.estate_id);
    let share = s.share;
    if (share === null) {
      if (c.kind === "EQUAL") share = 1;
      else if (c.kind === "SURFACE") share = areas.get(s.estate_id) ?? 0;
      else details.push({ field: `shares[${i}].share`, message: `Required for a ${c.kind} key` });
    } else if (c.kind === "EQUAL" && share !== 1)
      details.push({ field: `shares[${i}].share`, message: "An EQUAL key's shares are all 1" });
    // Shares count to four decimals (weightOf): a smaller one would weigh nothing.
    if (share !== null && !(share >= 0.0001))
      details.push({ field: `shares[${i}].share`, message: "Must be at least 0.0001" });
    return { estate_id: s.estate_id, share: share ?? 0 };
  });
  if (details.length > 0) throw validationError("Invalid distribution key", details);
  return [
    {
      type: "DistributionKeyDefined",
      data: { place_id: c.place_id, key_id: c.key_id, name: c.name, kind: c.kind, shares },
    },
  ];
}

function freeze(c: Extract<LedgerCommand, { type: "FreezeCharges" }>, ledger: ChargeLedger): ChargesEvent[] {
  if (c.from > c.to)
    throw validationError("Invalid freeze", [{ field: "to", message: "Must not be before from" }]);
  if (ledger.freezes.some((f) => f.freeze_id === c.freeze_id))
    throw conflict(`Freeze ${c.freeze_id} already exists`);
  return [
    { type: "ChargesFrozen", data: { place_id: c.place_id, freeze_id: c.freeze_id, from: c.from, to: c.to } },
  ];
}

export const ledgerDecider: Decider<ChargeLedger, LedgerCommand, ChargesEvent> = {
  initialState: emptyLedger,
  evolve: evolveLedger,
  decide(command, state) {
    switch (command.type) {
      case "RecordCharge":
        return recordCharge(command, state);
      case "ChangeCharge":
        return changeCharge(command, state);
      case "RemoveCharge":
        return removeCharge(command, state);
      case "DefineDistributionKey":
        return defineKey(command, state);
      case "FreezeCharges":
        return freeze(command, state);
      default: {
        const _exhaustive: never = command;
        return _exhaustive;
      }
    }
  },
};

// ---------------------------------------------------------------- regularisations of a lease

export interface RegulariseCharges {
  type: "RegulariseCharges";
  regularisation_id: string;
  place_id: string;
  lease_status: string;
  /** The law's facts, amounts in cents (src/law/charges.ts). */
  facts: RegularisationFacts;
}

function regulariseCharges(c: RegulariseCharges, state: LeaseRegularisations): RegularisationEvent[] {
  const { facts } = c;
  const { from, to } = facts.period;
  if (c.lease_status === "DRAFT" || c.lease_status === "PENDING_SIGNATURE")
    throw conflict(`Lease ${facts.lease_id} is ${c.lease_status}: it has no charges to regularise`);
  const details: ErrorDetail[] = [];
  if (from > to) details.push({ field: "to", message: "Must not be before from" });
  else if (to >= addYears(from, 1))
    details.push({ field: "to", message: "A regularisation covers at most one year (art. 23)" });
  if (to > facts.regularised_on)
    details.push({ field: "to", message: "The period must be over (not after today)" });
  if (details.length > 0) throw validationError("Invalid regularisation", details);
  const done = state.periods.find((p) => p.from <= to && p.to >= from);
  if (done)
    throw conflict(
      `The charges ${done.from} to ${done.to} of lease ${facts.lease_id} are already regularised (${done.regularisation_id})`,
    );
  const r = regularise(facts);
  enforce(r.verdicts[0]);
  const firstMonth = addMonths(`${facts.regularised_on.slice(0, 7)}-01`, 1);
  return [
    {
      type: "ChargesRegularised",
      data: {
        regularisation_id: c.regularisation_id,
        lease_id: facts.lease_id,
        place_id: c.place_id,
        estate_id: facts.estate_id,
        period_from: from,
        period_to: to,
        regularised_on: facts.regularised_on,
        days_of_period: r.days_of_period,
        days_occupied: r.days_occupied,
        recoverable_total: toEuros(r.recoverable_total),
        lines: r.lines.map((l) => ({
          ...l,
          place_amount: toEuros(l.place_amount),
          lease_amount: toEuros(l.lease_amount),
        })),
        excluded: r.excluded.map((e) => ({ ...e, amount: toEuros(e.amount) })),
        lease_amount: toEuros(r.lease_amount),
        provisions_called: toEuros(r.provisions_called),
        balance: toEuros(r.balance),
        instalments: {
          allowed: r.instalments.allowed,
          deadline: r.instalments.deadline,
          schedule: r.instalments.schedule.map((amount, i) => ({
            month: addMonths(firstMonth, i).slice(0, 7),
            amount: toEuros(amount),
          })),
        },
        verdicts: r.verdicts,
      },
    },
  ];
}

export const regularisationDecider: Decider<LeaseRegularisations, RegulariseCharges, RegularisationEvent> = {
  initialState: () => ({ periods: [] }),
  evolve: evolveRegularisations,
  decide(command, state) {
    switch (command.type) {
      case "RegulariseCharges":
        return regulariseCharges(command, state);
      default: {
        const _exhaustive: never = command.type;
        return _exhaustive;
      }
    }
  },
};

// ---------------------------------------------------------------- service contracts

export interface ServiceFacts {
  /** The provider names a contact of the tenant (null: none given). */
  provider_known: boolean;
  /** The place's distribution keys. */
  key_ids: string[];
}

/**
 * A contract recovers either a percent of its price or a stated amount, never both, never more than
 * its price; its end is not before its start; its provider and key are known.
 */
export const serviceDecider = resourceDecider(serviceResource, {
  check: (s, command) => {
    const facts = command as unknown as Partial<ServiceFacts>;
    const details: ErrorDetail[] = [];
    const percent = s.recoverable_share_percent;
    const amount = s.recoverable_amount;
    if ((percent === null) === (amount === null))
      details.push({
        field: "recoverable_share_percent",
        message: "Give either recoverable_share_percent or recoverable_amount",
      });
    if (amount !== null && cents(amount) > cents(s.amount))
      details.push({ field: "recoverable_amount", message: "Must not exceed amount" });
    if (s.kind === "CARETAKER") details.push(...(caretakerVerdict(percent).details.errors ?? []));
    if (s.end_date !== null && s.end_date < s.start_date)
      details.push({ field: "end_date", message: "Must not be before start_date" });
    if (s.provider_contact_id !== null && facts.provider_known === false)
      details.push({ field: "provider_contact_id", message: `Contact ${s.provider_contact_id} not found` });
    if (s.distribution_key_id !== null && facts.key_ids && !facts.key_ids.includes(s.distribution_key_id))
      details.push({ field: "distribution_key_id", message: "Not a distribution key of this place" });
    return details;
  },
});
