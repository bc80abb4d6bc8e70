import type { ParsedLine } from "../../../events/bank/index.ts";
import { listAt, parseXml, textAt } from "./xml.ts";

/**
 * OFX statements: 2.x is XML; 1.x is SGML (a header of `KEY:VALUE` lines, leaf elements left
 * unclosed), turned into XML by closing each leaf before the XML parser reads it.
 */

const LEAF = /<([A-Za-z0-9.]+)>([^<]*)/g;

/** OFX 1.x SGML as XML: header dropped, every leaf element closed, bare ampersands escaped. */
export function sgmlToXml(sgml: string): string {
  const start = sgml.indexOf("<OFX>");
  if (start < 0) throw new Error("No <OFX> element");
  const body = sgml.slice(start).replace(/&(?!(?:amp|lt|gt|quot|apos|#\d+);)/g, "&amp;");
  return body.replace(LEAF, (whole, tag: string, value: string, offset: number, all: string) => {
    const after = all.slice(offset + whole.length);
    if (value.trim() === "" || after.startsWith(`</${tag}>`)) return whole;
    return `<${tag}>${value.trim()}</${tag}>`;
  });
}

/** 20251203120000[-5:EST] -> 2025-12-03. */
const dateOf = (v: string | null) =>
  v && /^\d{8}/.test(v) ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}` : "";

export function parseOfx(text: string): ParsedLine[] {
  const xml = /^\s*<\?xml/.test(text) ? text : sgmlToXml(text);
  const doc = parseXml(xml);
  const statements = [
    ...listAt(doc, "OFX", "BANKMSGSRSV1", "STMTTRNRS").map((r) => r.STMTRS),
    ...listAt(doc, "OFX", "CREDITCARDMSGSRSV1", "CCSTMTTRNRS").map((r) => r.CCSTMTRS),
  ];
  if (statements.length === 0) throw new Error("No OFX bank statement (BANKMSGSRSV1/STMTTRNRS/STMTRS)");
  return statements.flatMap((s) =>
    listAt(s, "BANKTRANLIST", "STMTTRN").map((t) => {
      const amount = Number((textAt(t, "TRNAMT") ?? "").replace(",", "."));
      if (!Number.isFinite(amount)) throw new Error("A transaction has no valid TRNAMT");
      const name = textAt(t, "NAME") ?? textAt(t, "PAYEE", "NAME");
      const memo = textAt(t, "MEMO");
      return {
        booked_on: dateOf(textAt(t, "DTPOSTED")),
        amount,
        label: [name, memo].filter(Boolean).join(" "),
        counterparty_name: name,
        counterparty_iban: null,
        reference: textAt(t, "REFNUM") ?? memo,
        entry_ref: textAt(t, "FITID"),
        return_reason: null,
      };
    }),
  );
}
