import Handlebars from "handlebars";
import type { Content, TDocumentDefinitions } from "pdfmake/interfaces.js";
import { frenchDate } from "../frenchText.ts";

/**
 * Handlebars templates for documents (docs/pdf.md). A template renders to plain lines in a small
 * markup, turned into pdfmake content here; pdfmake never sees template text as code:
 *
 *   # Title / ## Section / ### Sub-section      headings
 *   - item                                      bullet list (consecutive lines)
 *   | cell | cell |                             table rows (consecutive lines; the first is the header)
 *   ![description](source)                      an image: kept only if embedded (renderPdf's sandbox)
 *   ---                                         page break
 *   any other line                              paragraph text; a blank line ends the paragraph
 *   **bold** inside any text
 *
 * Values from the view model are flattened to one line and `|` / `**` are neutralised, so data can
 * never open a heading, a table cell, bold text or an image.
 */

const hb = Handlebars.create();

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;
hb.registerHelper("date", (value: unknown) => {
  const m = typeof value === "string" ? DATE.exec(value) : null;
  return m ? `${m[3]}/${m[2]}/${m[1]}` : "—";
});
/** `1er décembre 2026`, as a French reader reads a date in a letter (src/platform/frenchText.ts). */
export const longDate = (value: unknown): string =>
  frenchDate(typeof value === "string" ? value : null) ?? "—";
hb.registerHelper("longDate", longDate);
const euro = new Intl.NumberFormat("fr-FR", { style: "currency", currency: "EUR" });
const decimal = new Intl.NumberFormat("fr-FR", { maximumFractionDigits: 2 });
/** Plain spaces instead of French narrow no-break ones: the fonts and text extraction keep them. */
const formatWith = (format: Intl.NumberFormat) => (value: unknown) =>
  typeof value === "number" && Number.isFinite(value)
    ? format.format(value).replace(/\u202f|\u00a0/g, " ")
    : "—";
/** `1 824,80 €`. */
export const formatEuro = formatWith(euro);
hb.registerHelper("money", formatEuro);
/** `1 043,5`. */
export const formatNumber = formatWith(decimal);
hb.registerHelper("number", formatNumber);
hb.registerHelper("eq", (a: unknown, b: unknown) => a === b);
hb.registerHelper("or", (...args: unknown[]) => args.slice(0, -1).some(Boolean));
hb.registerHelper("join", (list: unknown, separator: unknown) =>
  Array.isArray(list) && list.length > 0 ? list.join(typeof separator === "string" ? separator : ", ") : "—",
);

/** One line, no markup: what a value may contribute to a template's output. */
export function neutralise(value: string): string {
  return value
    .replace(/[\r\n\t\f\v\u2028\u2029]+/g, " ")
    .replace(/\|/g, "/")
    .replace(/\*\*/g, "*")
    .replace(/!\[/g, "! [");
}

function neutraliseDeep(value: unknown): unknown {
  if (typeof value === "string") return neutralise(value);
  if (Array.isArray(value)) return value.map(neutraliseDeep);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, neutraliseDeep(v)]));
  }
  return value;
}

/** Compiles a template once; partials are registered by name for `{{> name}}`. */
export function compileTemplate<View>(source: string, partials: Record<string, string> = {}) {
  for (const [name, partial] of Object.entries(partials)) hb.registerPartial(name, partial);
  // Plain text out: no HTML escaping (values are neutralised instead); strict: a missing field is a bug.
  const template = hb.compile(source, { noEscape: true, strict: true });
  return (view: View): string => template(neutraliseDeep(view));
}

/**
 * A run's words joined by a hyphen ("celui-ci", "elle-même") as one unbreakable inline, with the
 * space after them: pdfmake spreads a justified line's slack between its inlines, and a line
 * break allowed after a hyphen made two inlines of one word ("celui- ci").
 */
const HYPHENATED = /([\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+\S*\s*)/u;

const WHOLE_HYPHENATED = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+\S*\s*$/u;

function runs(text: string, bold: boolean): Content[] {
  return text
    .split(HYPHENATED)
    .filter((p) => p !== "")
    .map((p) => {
      const hyphenated = WHOLE_HYPHENATED.test(p) ? { noWrap: true } : {};
      return { text: p, ...(bold ? { bold: true } : {}), ...hyphenated } as Content;
    });
}

/**
 * Bold runs of one line of text. The punctuation right after a bold run (", ", ". ") joins it:
 * as a run of its own, a justified line would put a space before it ("Marchand , personne").
 */
function inline(text: string): Content {
  const parts = text.split("**");
  if (parts.length === 1 && !HYPHENATED.test(text)) return text;
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const stuck = /^[^\s]+/.exec(parts[i + 1])?.[0] ?? "";
    parts[i] += stuck;
    parts[i + 1] = parts[i + 1].slice(stuck.length);
  }
  return { text: parts.flatMap((p, i) => (p === "" ? [] : runs(p, i % 2 === 1))) };
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());

/** The markup lines of a rendered template as pdfmake content. */
export function markupToContent(markup: string): Content[] {
  const content: Content[] = [];
  let paragraph: string[] = [];
  let list: string[] = [];
  let table: string[][] = [];
  const flush = () => {
    if (paragraph.length > 0)
      content.push({ text: inline(paragraph.join(" ")), style: "paragraph" } as Content);
    if (list.length > 0) content.push({ ul: list.map(inline), style: "list" } as Content);
    if (table.length > 0) {
      const width = Math.max(...table.map((r) => r.length));
      const body = table.map((r, i) =>
        Array.from({ length: width }, (_, c) => ({ text: inline(r[c] ?? ""), bold: i === 0 }) as Content),
      );
      content.push({
        table: { headerRows: 1, widths: Array(width).fill("*"), body },
        style: "table",
      } as Content);
    }
    paragraph = [];
    list = [];
    table = [];
  };
  for (const raw of markup.split("\n")) {
    const line = raw.trim();
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    const image = /^!\[([^\]]*)\]\(([^)]*)\)$/.exec(line);
    if (line === "") flush();
    else if (line === "---") {
      flush();
      content.push({ text: "", pageBreak: "after" });
    } else if (heading) {
      flush();
      content.push({ text: heading[2], style: `h${heading[1].length}` });
    } else if (image) {
      flush();
      content.push({ image: image[2], fit: [200, 120], alt: image[1] } as Content);
    } else if (line.startsWith("- ")) {
      if (paragraph.length > 0 || table.length > 0) flush();
      list.push(line.slice(2));
    } else if (line.startsWith("|")) {
      if (paragraph.length > 0 || list.length > 0) flush();
      // A Markdown separator row (`| --- | :-: |`) is layout, not a row of dashes on the page.
      if (!/^\|(\s*:?-+:?\s*\|)+$/.test(line)) table.push(cells(line));
    } else {
      if (list.length > 0 || table.length > 0) flush();
      paragraph.push(line);
    }
  }
  flush();
  return content;
}

/** A document's page layout and styles (A4, French administrative look). */
export function documentOf(
  content: Content[],
  info: { title: string; subject?: string },
): TDocumentDefinitions {
  return {
    info: { title: info.title, subject: info.subject, creator: "pms" },
    pageSize: "A4",
    pageMargins: [50, 50, 50, 60],
    content,
    footer: (current: number, total: number) => ({
      text: `${info.title} — page ${current} / ${total}`,
      alignment: "center",
      fontSize: 8,
      color: "#555555",
    }),
    defaultStyle: { font: "Roboto", fontSize: 10, lineHeight: 1.2 },
    styles: {
      h1: { fontSize: 16, bold: true, alignment: "center", margin: [0, 0, 0, 12] },
      h2: { fontSize: 12, bold: true, margin: [0, 12, 0, 6], color: "#1f3a5f" },
      h3: { fontSize: 10.5, bold: true, margin: [0, 8, 0, 4] },
      paragraph: { margin: [0, 0, 0, 6], alignment: "justify" },
      list: { margin: [10, 0, 0, 6] },
      table: { margin: [0, 2, 0, 8], fontSize: 9 },
    },
  };
}
