import type {
  EstateDiagnosticEvent,
  EstateDiagnosticFields,
  EstateDiagnosticType,
} from "../../events/estateDiagnostics.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, type ErrorDetail, notFound, validationError } from "../../platform/errors.ts";
import { parisDate } from "../../platform/formatDates.ts";

export type EstateDiagnosticInput = Pick<EstateDiagnosticFields, "type" | "diagnosis_date"> &
  Partial<EstateDiagnosticFields>;

/**
 * The stream is the estate's (`estate_diagnostics-<estate_id>`): one command sees every
 * diagnostic of the estate, which is what makes "one active per type" hold.
 */
export type EstateDiagnosticsCommand =
  | {
      type: "RecordEstateDiagnostic";
      estate_id: string;
      id: string;
      fields: EstateDiagnosticInput;
      /** Looked up by the route in the caller's tenant; media only when media_id is sent. */
      known: { estate: boolean; media?: boolean };
      now: string;
    }
  | { type: "DeleteEstateDiagnostic"; estate_id: string; id: string };

export interface EstateDiagnosticsState {
  diagnostics: Record<string, { type: EstateDiagnosticType; active: boolean }>;
}

export const estateDiagnosticsDecider: Decider<
  EstateDiagnosticsState,
  EstateDiagnosticsCommand,
  EstateDiagnosticEvent
> = {
  initialState: () => ({ diagnostics: {} }),

  evolve(state, event) {
    switch (event.type) {
      case "EstateDiagnosticRecorded":
        return {
          diagnostics: {
            ...state.diagnostics,
            [event.data.diagnostic_id]: { type: event.data.type, active: true },
          },
        };
      case "EstateDiagnosticDeactivated": {
        const current = state.diagnostics[event.data.diagnostic_id];
        if (!current) return state;
        return {
          diagnostics: { ...state.diagnostics, [event.data.diagnostic_id]: { ...current, active: false } },
        };
      }
      case "EstateDiagnosticDeleted": {
        const { [event.data.diagnostic_id]: _gone, ...rest } = state.diagnostics;
        return { diagnostics: rest };
      }
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "RecordEstateDiagnostic": {
        if (!command.known.estate) throw notFound("Estate", command.estate_id);
        if (state.diagnostics[command.id]) throw conflict(`Estate diagnostic ${command.id} already exists`);
        const fields: EstateDiagnosticFields = {
          type: command.fields.type,
          diagnosis_date: command.fields.diagnosis_date,
          valid_until: command.fields.valid_until ?? null,
          reference: command.fields.reference ?? null,
          provider: command.fields.provider ?? null,
          notes: command.fields.notes ?? null,
          media_id: command.fields.media_id ?? null,
        };
        const details: ErrorDetail[] = [];
        if (fields.diagnosis_date > parisDate(command.now)) {
          details.push({ field: "diagnosis_date", message: "must not be in the future" });
        }
        if (fields.valid_until !== null && fields.valid_until <= fields.diagnosis_date) {
          details.push({ field: "valid_until", message: "must be later than diagnosis_date" });
        }
        if (fields.media_id !== null && command.known.media === false) {
          details.push({ field: "media_id", message: `Media ${fields.media_id} not found` });
        }
        if (details.length > 0) throw validationError("Invalid estate diagnostic", details);

        const previous = Object.entries(state.diagnostics).filter(
          ([, d]) => d.active && d.type === fields.type,
        );
        return [
          ...previous.map(
            ([id]): EstateDiagnosticEvent => ({
              type: "EstateDiagnosticDeactivated",
              data: { diagnostic_id: id, estate_id: command.estate_id, replaced_by: command.id },
            }),
          ),
          {
            type: "EstateDiagnosticRecorded",
            data: { diagnostic_id: command.id, estate_id: command.estate_id, ...fields },
          },
        ];
      }
      case "DeleteEstateDiagnostic": {
        if (!state.diagnostics[command.id]) throw notFound("Estate diagnostic", command.id);
        return [
          {
            type: "EstateDiagnosticDeleted",
            data: { diagnostic_id: command.id, estate_id: command.estate_id },
          },
        ];
      }
    }
  },
};
