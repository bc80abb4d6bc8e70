import type { CsvMapping, ParsedLine, StatementFormat } from "../../../events/bank/index.ts";
import { validationError } from "../../../platform/errors.ts";
import { parseCamt } from "./camt.ts";
import { decodeExport, parseCsv } from "./csv.ts";
import { parseOfx } from "./ofx.ts";

/** The format of a statement from its first bytes, when the upload does not say. */
export function detectFormat(text: string): StatementFormat {
  const head = text.slice(0, 4000);
  if (/BkToCstmrStmt/.test(head)) return "CAMT053";
  if (/BkToCstmrDbtCdtNtfctn/.test(head)) return "CAMT054";
  if (/OFXHEADER|<OFX>/i.test(head)) return "OFX";
  return "CSV";
}

/**
 * The lines of a statement file. Any problem of the file (not XML, no entries, a bad amount or
 * date, a CSV without its mapping) is the client's: a 400 on `file`, never a 500.
 */
export function parseStatement(
  bytes: Buffer,
  format: StatementFormat | undefined,
  mapping: CsvMapping | null,
): { format: StatementFormat; lines: ParsedLine[] } {
  const text = decodeExport(bytes);
  const chosen = format ?? detectFormat(text);
  try {
    const result = (() => {
      switch (chosen) {
        case "CAMT053":
        case "CAMT054": {
          const camt = parseCamt(text);
          if (camt.format !== chosen) throw new Error(`The file is ${camt.format}, not ${chosen}`);
          return camt;
        }
        case "OFX":
          return { format: chosen, lines: parseOfx(text) };
        case "CSV":
          if (!mapping)
            throw new Error("A CSV statement needs the account's csv_mapping (PUT /api/bank-accounts/{id})");
          return { format: chosen, lines: parseCsv(text, mapping) };
      }
    })();
    const bad = result.lines.find(
      (l) => !/^\d{4}-\d{2}-\d{2}$/.test(l.booked_on) || !Number.isFinite(l.amount),
    );
    if (bad) throw new Error(`A line has no booking date or amount (${bad.label})`);
    return result;
  } catch (error) {
    throw validationError("Invalid statement", [
      { field: "file", message: `${chosen}: ${(error as Error).message}`.slice(0, 500) },
    ]);
  }
}
