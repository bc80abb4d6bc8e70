/**
 * What a rule of the law answers (docs/compliance.md): a verdict, never an exception. Deciders turn
 * a FAIL into a 422 (`enforce` in src/platform/errors.ts); the compliance report lists verdicts.
 */

export type VerdictStatus = "PASS" | "FAIL" | "UNKNOWN" | "NOT_APPLICABLE";

/** A figure a FAIL names, in the shape of an error detail of docs/design.md §4. */
export interface FieldError {
  field: string;
  message: string;
}

export interface Verdict {
  rule: string;
  status: VerdictStatus;
  message: string;
  legal_reference: string;
  /** The figures compared; a FAIL lists the fields at fault in `errors`. */
  details: Record<string, unknown> & { errors?: FieldError[] };
}

export const verdict = (
  rule: string,
  status: VerdictStatus,
  message: string,
  legal_reference: string,
  details: Verdict["details"] = {},
): Verdict => ({ rule, status, message, legal_reference, details });

export const LOI_89 = "loi n° 89-462 du 6 juillet 1989";

/** Advice (src/law/guidance.ts): a verdict that may also WARN, never a refusal nor a non-compliance. */
export type Advice = Omit<Verdict, "status"> & { status: VerdictStatus | "WARN" };

export const advice = (
  rule: string,
  status: Advice["status"],
  message: string,
  legal_reference: string,
  details: Verdict["details"] = {},
): Advice => ({ rule, status, message, legal_reference, details });
