import type { DomainEvent } from "../platform/decider.ts";
import { allEventTypes } from "../platform/decider.ts";

/**
 * Diagnostic kinds of the French "dossier de diagnostic technique" kept per estate:
 * lead (CREP, constat de risque d'exposition au plomb), asbestos (amiante), electrical
 * (état de l'installation intérieure d'électricité), gas (état de l'installation intérieure
 * de gaz), risk_assessment (ERP, état des risques et pollutions), coownership_rules
 * (règlement de copropriété). The energy diagnosis (DPE) has its own area.
 */
export const ESTATE_DIAGNOSTIC_TYPES = [
  "lead",
  "asbestos",
  "electrical",
  "gas",
  "risk_assessment",
  "coownership_rules",
] as const;
export type EstateDiagnosticType = (typeof ESTATE_DIAGNOSTIC_TYPES)[number];

export interface EstateDiagnosticFields {
  type: EstateDiagnosticType;
  diagnosis_date: string;
  valid_until: string | null;
  reference: string | null;
  provider: string | null;
  notes: string | null;
  media_id: string | null;
}

/**
 * All diagnostics of one estate share one stream, so recording a new one and deactivating the
 * previous active one of its type is a single atomic append. Timestamps are metadata.occurred_at.
 */
export type EstateDiagnosticEvent =
  | DomainEvent<
      "EstateDiagnosticRecorded",
      { diagnostic_id: string; estate_id: string } & EstateDiagnosticFields
    >
  | DomainEvent<
      "EstateDiagnosticDeactivated",
      { diagnostic_id: string; estate_id: string; replaced_by: string }
    >
  | DomainEvent<"EstateDiagnosticDeleted", { diagnostic_id: string; estate_id: string }>;

export type EstateDiagnosticEventType = EstateDiagnosticEvent["type"];
export const estateDiagnosticEventTypes = allEventTypes<EstateDiagnosticEventType>()([
  "EstateDiagnosticRecorded",
  "EstateDiagnosticDeactivated",
  "EstateDiagnosticDeleted",
]);

export const estateDiagnosticsStream = (estateId: string) => `estate_diagnostics-${estateId}`;
