import { JOURNALS } from "../../projections/books/index.ts";

/**
 * The fichier des écritures comptables (LPF art. L47 A I; its form: art. A47 A-1, arrêté du
 * 29 juillet 2013): one line per entry line, the 18 fields below in this order, tab-separated,
 * the first line naming them; dates AAAAMMJJ; amounts with a decimal comma and no thousands
 * separator; entries numbered on a continuous sequence (docs/accounting.md, "The FEC").
 */
export const FEC_FIELDS = [
  "JournalCode",
  "JournalLib",
  "EcritureNum",
  "EcritureDate",
  "CompteNum",
  "CompteLib",
  "CompAuxNum",
  "CompAuxLib",
  "PieceRef",
  "PieceDate",
  "EcritureLib",
  "Debit",
  "Credit",
  "EcritureLet",
  "DateLet",
  "ValidDate",
  "Montantdevise",
  "Idevise",
] as const;

export interface FecRow {
  journal: string;
  number: number;
  entry_date: string;
  account: string;
  account_label: string;
  aux_account: string | null;
  piece_ref: string;
  piece_date: string;
  label: string;
  debit: string | number;
  credit: string | number;
  lettering: string | null;
  lettered_on: string | null;
  valid_date: string;
}

/** `<SIREN>FEC<closing date AAAAMMJJ>.txt`: the fiscal year is the calendar year. */
export const fecFileName = (siren: string, year: number) => `${siren}FEC${year}1231.txt`;

export const fecHeader = () => FEC_FIELDS.join("\t");

const amount = (v: string | number) => Number(v).toFixed(2).replace(".", ",");
/** A field never holds the separator or a line break. */
const field = (v: string | null) => (v ?? "").replace(/[\t\r\n]+/g, " ");

export const fecLine = (r: FecRow): string =>
  [
    r.journal,
    JOURNALS[r.journal as keyof typeof JOURNALS] ?? r.journal,
    String(r.number),
    r.entry_date,
    r.account,
    r.account_label,
    r.aux_account,
    r.aux_account ? `Locataire ${r.aux_account.slice(3)}` : "",
    r.piece_ref,
    r.piece_date,
    r.label,
    amount(r.debit),
    amount(r.credit),
    r.lettering,
    r.lettered_on,
    r.valid_date,
    "",
    "",
  ]
    .map((v) => field(v))
    .join("\t");

/** ISO 8859-15: Latin-1 but for the eight characters it replaces (€, Š, š, Ž, ž, Œ, œ, Ÿ). */
const LATIN9: Record<string, number> = {
  "€": 0xa4,
  Š: 0xa6,
  š: 0xa8,
  Ž: 0xb4,
  ž: 0xb8,
  Œ: 0xbc,
  œ: 0xbd,
  Ÿ: 0xbe,
};
// biome-ignore lint/suspicious/noControlCharactersInRegex: Latin-1 starts at U+0000 (tabs and line ends are text).
const NOT_LATIN9 = /[^\u0000-\u00a3\u00a5\u00a7\u00a9-\u00b3\u00b5-\u00b7\u00b9-\u00bb\u00bf-\u00ff]/;
export function latin9(text: string): Buffer {
  // Most text is in the common part of Latin-1 and Latin-9: one native conversion.
  if (!NOT_LATIN9.test(text)) return Buffer.from(text, "latin1");
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0x3f;
    out[n++] = LATIN9[ch] ?? (NOT_LATIN9.test(ch) ? 0x3f : code);
  }
  return out.subarray(0, n);
}

const DATE = /^\d{4}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/;
const AMOUNT = /^-?\d+(,\d{1,2})?$/;

/**
 * The checks an auditor's tool makes, written from art. A47 A-1: the header, 18 fields a line,
 * dates AAAAMMJJ, amounts with a comma, each entry balanced, numbers a sequence without gaps in
 * file order, a validation date on every line, lettering codes balanced and dated. The problems found.
 */
export function checkFec(text: string): string[] {
  const problems: string[] = [];
  const lines = text.replace(/\r\n$/, "").split("\r\n");
  if (lines[0] !== FEC_FIELDS.join("\t")) problems.push("line 1: the header is not the 18 fields in order");
  const entries = new Map<string, number>();
  const letters = new Map<string, number>();
  const order: number[] = [];
  lines.slice(1).forEach((line, i) => {
    const at = `line ${i + 2}`;
    const f = line.split("\t");
    if (f.length !== 18) {
      problems.push(`${at}: ${f.length} fields, 18 expected`);
      return;
    }
    const [
      journal,
      ,
      num,
      date,
      account,
      ,
      aux,
      auxLabel,
      piece,
      pieceDate,
      label,
      debit,
      credit,
      let_,
      dateLet,
      valid,
    ] = f;
    if (!journal) problems.push(`${at}: JournalCode empty`);
    if (!/^\d+$/.test(num)) problems.push(`${at}: EcritureNum ${num} is not a number`);
    for (const [name, d] of [
      ["EcritureDate", date],
      ["PieceDate", pieceDate],
      ["ValidDate", valid],
    ])
      if (!DATE.test(d)) problems.push(`${at}: ${name} ${d} is not AAAAMMJJ`);
    if (!/^\d{3}/.test(account)) problems.push(`${at}: CompteNum ${account} does not start with 3 digits`);
    if (!piece || !label) problems.push(`${at}: PieceRef and EcritureLib are required`);
    if (Boolean(aux) !== Boolean(auxLabel)) problems.push(`${at}: CompAuxNum and CompAuxLib go together`);
    if (!AMOUNT.test(debit) || !AMOUNT.test(credit)) problems.push(`${at}: amounts must use a decimal comma`);
    if (Boolean(let_) !== Boolean(dateLet)) problems.push(`${at}: EcritureLet and DateLet go together`);
    if (dateLet && !DATE.test(dateLet)) problems.push(`${at}: DateLet ${dateLet} is not AAAAMMJJ`);
    const cents =
      Math.round(Number(debit.replace(",", ".")) * 100) - Math.round(Number(credit.replace(",", ".")) * 100);
    const n = Number(num);
    if (order.at(-1) !== n) order.push(n);
    entries.set(num, (entries.get(num) ?? 0) + cents);
    if (let_) letters.set(let_, (letters.get(let_) ?? 0) + cents);
  });
  for (const [num, sum] of entries) if (sum !== 0) problems.push(`entry ${num} is not balanced`);
  for (const [code, sum] of letters) if (sum !== 0) problems.push(`lettering ${code} is not balanced`);
  order.forEach((n, i) => {
    if (n !== i + 1)
      problems.push(`entry numbers: ${n} found where ${i + 1} was expected (a gap or a disorder)`);
  });
  return [...new Set(problems)].slice(0, 50);
}
