import type { z } from "zod";
import type { ErrorDetail } from "./errors.ts";

/** Fields every resource exposes but no client may set: ignored in bodies so a GET can be PUT back. */
export const READ_ONLY_FIELDS = ["id", "created_at", "updated_at", "erased_at"] as const;

export function stripReadOnly(body: unknown, extra: readonly string[] = []): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const key of [...READ_ONLY_FIELDS, ...extra]) delete copy[key];
  return copy;
}

/** zod issues as docs/architecture.md §4 details: dotted paths, array indexes as `[i]`. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ""): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      // A schema may say why a key is refused (settings: no reminder fee); else zod's default.
      const message = issue.message.startsWith("Unrecognized key") ? "Unknown field" : issue.message;
      for (const key of issue.keys) {
        details.push({ field: joinPath(prefix, [...issue.path, key]), message });
      }
      continue;
    }
    details.push({ field: joinPath(prefix, issue.path) || "body", message: issue.message });
  }
  return details;
}

export function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}
