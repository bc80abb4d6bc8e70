import { createHash } from "node:crypto";

/**
 * ISO 7064 mod 97-10 identifiers of SEPA payments (docs/bank.md): the ISO 11649 creditor reference
 * ("RF" + 2 check digits + up to 21 letters or digits) an avis d'échéance gives the tenant to quote,
 * and the SEPA creditor identifier (ICS in France). Pure, no area.
 */

/** Letters as 10..35, digits as themselves, then the remainder mod 97 (in chunks: no bigint). */
function mod97(alnum: string): number {
  let rest = 0;
  for (const ch of alnum.toUpperCase()) {
    const code = ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of code) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest;
}

const checkDigits = (body: string, prefix: string) =>
  String(98 - mod97(`${body}${prefix}00`)).padStart(2, "0");

/** The RF reference of `body` (1 to 21 letters or digits). */
export const creditorReferenceOf = (body: string): string =>
  `RF${checkDigits(body, "RF")}${body.toUpperCase()}`;

/** A deterministic RF reference for `seed` (a rent call's id): 21 base-36 characters of its SHA-256. */
export function creditorReferenceFor(seed: string): string {
  const hex = createHash("sha256").update(seed.toLowerCase()).digest("hex").slice(0, 26);
  const body = BigInt(`0x${hex}`).toString(36).toUpperCase().padStart(21, "0").slice(-21);
  return creditorReferenceOf(body);
}

/** Whether `value` (spaces ignored) is a well-formed RF reference with right check digits. */
export function isCreditorReference(value: string): boolean {
  const v = value.replace(/\s+/g, "").toUpperCase();
  if (!/^RF\d{2}[0-9A-Z]{1,21}$/.test(v)) return false;
  return mod97(`${v.slice(4)}${v.slice(0, 4)}`) === 1;
}

/** Every RF reference written in `text` (spaces inside it ignored), upper-cased. */
export function creditorReferencesIn(text: string): string[] {
  const squeezed = text.toUpperCase().replace(/\s+/g, "");
  return [...squeezed.matchAll(/RF\d{2}[0-9A-Z]{1,21}/g)].map((m) => m[0]).filter(isCreditorReference);
}

/**
 * The problem of a SEPA creditor identifier, or null (EPC262-08: country, 2 check digits over the
 * national identifier and the country, a 3-character business code the check ignores, the national
 * identifier; a French ICS is 13 characters, `FRkkZZZnnnnnn`).
 */
export function creditorIdentifierProblem(value: string): string | null {
  const v = value.replace(/\s+/g, "").toUpperCase();
  if (!/^[A-Z]{2}\d{2}[0-9A-Z]{3}[0-9A-Z]{1,28}$/.test(v))
    return "Must be a SEPA creditor identifier: country, 2 check digits, business code, national identifier";
  if (v.startsWith("FR") && v.length !== 13) return "A French creditor identifier (ICS) has 13 characters";
  const national = v.slice(7);
  if (checkDigits(national, v.slice(0, 2)) !== v.slice(2, 4)) return "Wrong check digits";
  return null;
}
