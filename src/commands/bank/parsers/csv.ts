import type { CsvMapping, ParsedLine } from "../../../events/bank/index.ts";

/**
 * CSV exports of French banks: `;` between fields, a preamble before the header row, dates
 * `dd/mm/yyyy`, amounts `1 234,56`, debit and credit often in two columns. What column holds what
 * is the account's saved mapping (header names, or 1-based column numbers).
 */

function rows(text: string, delimiter: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      out.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length > 0) out.push([...row, field]);
  return out.filter((r) => r.some((f) => f.trim() !== ""));
}

/** "1 234,56", "-12,00", "1.234,56 €" (decimal comma) or "1234.56" (decimal point) in euros. */
export function frenchAmount(value: string, decimal: "," | "." = ","): number | null {
  let v = value.replace(/[\s\u00a0\u202f€]/g, "").replace(/^\+/, "");
  if (v === "") return null;
  v = decimal === "," ? v.replace(/\./g, "").replace(",", ".") : v.replace(/,/g, "");
  if (!/^-?\d+(\.\d+)?$/.test(v)) throw new Error(`Not an amount: ${value}`);
  return Math.round(Number(v) * 100) / 100;
}

function isoDateOf(value: string, format: CsvMapping["date_format"]): string {
  const v = value.trim();
  const m =
    format === "yyyy-mm-dd" ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (!m) throw new Error(`Not a date ${format ?? "dd/mm/yyyy"}: ${value}`);
  const [y, mo, d] = format === "yyyy-mm-dd" ? [m[1], m[2], m[3]] : [m[3], m[2], m[1]];
  const iso = `${y}-${mo}-${d}`;
  const check = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(check.getTime()) || check.toISOString().slice(0, 10) !== iso)
    throw new Error(`Not a real date: ${value}`);
  return iso;
}

/** Text of the bytes: UTF-8 when it is valid, else Windows-1252 (what most French banks export). */
export function decodeExport(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

const norm = (s: string) => s.trim().toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");

export function parseCsv(text: string, mapping: CsvMapping): ParsedLine[] {
  const all = rows(text, mapping.delimiter ?? ";");
  const byNumber = (name: string) => (/^\d+$/.test(name) ? Number(name) - 1 : null);
  const numbered = byNumber(mapping.date) !== null;
  // The header is the first row naming the date column (a preamble of account lines may come first).
  const headerAt = numbered ? -1 : all.findIndex((r) => r.some((f) => norm(f) === norm(mapping.date)));
  if (!numbered && headerAt < 0) throw new Error(`No header row with the column "${mapping.date}"`);
  const header = headerAt >= 0 ? all[headerAt].map(norm) : [];
  const col = (name: string | undefined) => {
    if (!name) return null;
    const n = byNumber(name) ?? header.indexOf(norm(name));
    if (n < 0) throw new Error(`No column "${name}" in the header`);
    return n;
  };
  const [date, label, amount, debit, credit, reference, cpName, cpIban] = [
    mapping.date,
    mapping.label,
    mapping.amount,
    mapping.debit,
    mapping.credit,
    mapping.reference,
    mapping.counterparty_name,
    mapping.counterparty_iban,
  ].map(col);
  const cell = (r: string[], i: number | null) => (i === null ? "" : (r[i] ?? "").trim());
  const lines: ParsedLine[] = [];
  for (const r of all.slice(headerAt + 1)) {
    // A row without a date is a total or a footer, not a movement.
    if (!cell(r, date)) continue;
    const decimal = mapping.decimal ?? ",";
    let value: number | null;
    if (amount !== null) value = frenchAmount(cell(r, amount), decimal);
    else {
      const d = frenchAmount(cell(r, debit), decimal);
      const c = frenchAmount(cell(r, credit), decimal);
      value = d !== null && d !== 0 ? -Math.abs(d) : c;
    }
    if (value === null) continue;
    lines.push({
      booked_on: isoDateOf(cell(r, date), mapping.date_format),
      amount: value,
      label: cell(r, label),
      counterparty_name: cell(r, cpName) || null,
      counterparty_iban: cell(r, cpIban).replace(/\s+/g, "").toUpperCase() || null,
      reference: cell(r, reference) || null,
      entry_ref: null,
      return_reason: null,
    });
  }
  return lines;
}
