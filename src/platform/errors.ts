/** Every error the API answers has this shape (docs/architecture.md §4). */
export interface ErrorDetail {
  field: string;
  message: string;
}

export type ErrorCode =
  | "ValidationError"
  | "Unauthorized"
  | "PaymentRequired"
  | "Forbidden"
  | "NotFound"
  | "Conflict"
  | "PreconditionFailed"
  | "PayloadTooLarge"
  | "UnsupportedMediaType"
  | "UnprocessableEntity"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable";

const statusOf: Record<ErrorCode, number> = {
  ValidationError: 400,
  Unauthorized: 401,
  PaymentRequired: 402,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  UnprocessableEntity: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
};

/** A refusal the client can act on; thrown by deciders, validators and plugins alike. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.code = code;
    this.details = details;
    this.name = "ApiError";
    this.status = statusOf[code];
  }

  toBody(): { error: ErrorCode; message: string; details?: ErrorDetail[] } {
    return this.details?.length
      ? { error: this.code, message: this.message, details: this.details }
      : { error: this.code, message: this.message };
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new ApiError("ValidationError", message, details);
export const fieldError = (field: string, message: string, summary = "Invalid data") =>
  new ApiError("ValidationError", summary, [{ field, message }]);
export const notFound = (resource: string, id: string) =>
  new ApiError("NotFound", `${resource} ${id} not found`);
export const conflict = (message: string, details?: ErrorDetail[]) =>
  new ApiError("Conflict", message, details);
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new ApiError("UnprocessableEntity", message, details);
export const preconditionFailed = (message = "If-Match does not match the current ETag") =>
  new ApiError("PreconditionFailed", message);
export const unsupportedMediaType = (message: string) => new ApiError("UnsupportedMediaType", message);

/**
 * A verdict of the law (src/law/verdict.ts) as a command's answer: a FAIL is a 422 naming the
 * fields at fault; any other verdict lets the command go on.
 */
export function enforce(verdict: {
  status: string;
  message: string;
  details: { errors?: ErrorDetail[] };
}): void {
  if (verdict.status === "FAIL") throw unprocessable(verdict.message, verdict.details.errors ?? []);
}
