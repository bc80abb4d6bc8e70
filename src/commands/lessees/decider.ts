import {
  erasedLessee,
  LESSEE_FIELDS,
  type LesseeChanges,
  type LesseeData,
  type LesseeEvent,
} from "../../events/lessees.ts";
import type { Verdict } from "../../law/verdict.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import { erasureRecord } from "../../platform/resource/decider.ts";
import { categoryRuleDetails, INVALID_DATA, type LesseeUpdateInput } from "./schemas.ts";

/** The write model of one lessee stream. */
export type LesseeState =
  | { status: "absent" }
  | { status: "active"; lessee: LesseeData; erased_at?: string }
  | { status: "deleted"; lessee: LesseeData; erased_at?: string }
  /** A registration fenced off after its email reservation was taken over: never existed for clients. */
  | { status: "abandoned" };

export type LesseeCommand =
  | { type: "RegisterLessee"; lessee_id: string; data: LesseeData; now: string }
  /** `changes` holds only the keys the client sent: omitted keeps, null removes. */
  | { type: "UpdateLessee"; lessee_id: string; changes: LesseeUpdateInput; now: string }
  /** `active_lease_count`: associations not ended on leases that are not over (read model fact). */
  | { type: "DeleteLessee"; lessee_id: string; active_lease_count: number }
  | { type: "AbandonLesseeRegistration"; lessee_id: string; email: string }
  /** `retention`: the law's verdicts on the facts the route gathered (src/law/retention.ts). */
  | {
      type: "EraseLesseePersonalData";
      lessee_id: string;
      reason: string;
      erased_by: string | null;
      now: string;
      retention: Verdict[];
    };

export const emailTaken = (fields = ["email"]) =>
  conflict(
    "A lessee with this email already exists",
    fields.map((field) => ({ field, message: "Email already in use" })),
  );

export const initialState = (): LesseeState => ({ status: "absent" });

export function evolve(state: LesseeState, event: LesseeEvent): LesseeState {
  switch (event.type) {
    case "LesseeRegistered": {
      const { lessee_id: _id, ...lessee } = event.data;
      return { status: "active", lessee };
    }
    case "LesseeUpdated":
      if (state.status !== "active" || state.erased_at) return state;
      return { status: "active", lessee: { ...state.lessee, ...event.data.changes } };
    case "LesseeEmailChanged":
      if (state.status !== "active") return state;
      return { status: "active", lessee: { ...state.lessee, email: event.data.email } };
    case "LesseeDeleted":
      return state.status === "active" ? { ...state, status: "deleted" } : state;
    case "LesseeRegistrationAbandoned":
      return state.status === "absent" ? { status: "abandoned" } : state;
    case "PersonalDataErased":
      if (state.status !== "active" && state.status !== "deleted") return state;
      return { ...state, lessee: erasedLessee(state.lessee), erased_at: event.data.erased_at };
    default:
      return state;
  }
}

export function decide(command: LesseeCommand, state: LesseeState): LesseeEvent[] {
  switch (command.type) {
    case "RegisterLessee": {
      // Abandoned: another create took the email over from this one, which stalled (docs/decisions.md).
      if (state.status === "abandoned") throw emailTaken();
      if (state.status !== "absent") throw conflict(`Lessee ${command.lessee_id} already exists`);
      assertValid(command.data, command.now);
      return [{ type: "LesseeRegistered", data: { lessee_id: command.lessee_id, ...command.data } }];
    }
    case "UpdateLessee": {
      if (state.status !== "active") throw notFound("Lessee", command.lessee_id);
      if (state.erased_at) throw conflict(`Lessee ${command.lessee_id} was erased (GDPR art. 17)`);
      const merged: LesseeData = { ...state.lessee };
      for (const [key, value] of Object.entries(command.changes)) {
        if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
      }
      assertValid(merged, command.now);
      const events: LesseeEvent[] = [];
      const changes: LesseeChanges = {};
      for (const field of LESSEE_FIELDS) {
        if (field === "email" || sameValue(state.lessee[field], merged[field])) continue;
        (changes as Record<string, unknown>)[field] = merged[field];
      }
      if (Object.keys(changes).length > 0) {
        events.push({ type: "LesseeUpdated", data: { lessee_id: command.lessee_id, changes } });
      }
      if (merged.email !== state.lessee.email) {
        events.push({
          type: "LesseeEmailChanged",
          data: { lessee_id: command.lessee_id, email: merged.email, previous_email: state.lessee.email },
        });
      }
      return events;
    }
    case "DeleteLessee": {
      if (state.status !== "active") throw notFound("Lessee", command.lessee_id);
      if (command.active_lease_count > 0) throw conflict("Cannot delete lessee with active leases");
      return [{ type: "LesseeDeleted", data: { lessee_id: command.lessee_id } }];
    }
    case "EraseLesseePersonalData": {
      if (state.status !== "active" && state.status !== "deleted")
        throw notFound("Lessee", command.lessee_id);
      if (state.erased_at) return [];
      return [
        { type: "PersonalDataErased", data: { lessee_id: command.lessee_id, ...erasureRecord(command) } },
      ];
    }
    case "AbandonLesseeRegistration": {
      if (state.status !== "absent") throw conflict(`Lessee ${command.lessee_id} already exists`);
      return [
        { type: "LesseeRegistrationAbandoned", data: { lessee_id: command.lessee_id, email: command.email } },
      ];
    }
  }
}

export const lesseeDecider: Decider<LesseeState, LesseeCommand, LesseeEvent> = {
  initialState,
  evolve,
  decide,
};

/** Category rules and the rules that need the clock, on a complete lessee; details prefixed in bulk. */
export function lesseeRuleDetails(lessee: LesseeData, now: string, prefix = ""): ErrorDetail[] {
  const details = categoryRuleDetails(lessee, prefix);
  if (lessee.birth_date !== null && lessee.birth_date > now.slice(0, 10)) {
    details.push({
      field: prefix ? `${prefix}.birth_date` : "birth_date",
      message: "Must not be in the future",
    });
  }
  return details;
}

function assertValid(lessee: LesseeData, now: string): void {
  const details = lesseeRuleDetails(lessee, now);
  if (details.length > 0) throw validationError(INVALID_DATA, details);
}

/** Structural equality of JSON values (key order ignored), to record only real changes. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
