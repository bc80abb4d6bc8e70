import { XMLParser, XMLValidator } from "fast-xml-parser";

/** Elements that repeat in the bank formats read here: always arrays, even when one is there. */
const REPEATED = new Set([
  "Stmt",
  "Ntfctn",
  "Ntry",
  "TxDtls",
  "Ustrd",
  "STMTTRN",
  "OrgnlPmtInfAndSts",
  "TxInfAndSts",
  "StsRsnInf",
  "AddtlInf",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

export type Node = Record<string, unknown>;

/** The document as nested objects; throws a readable message when it is not well-formed XML. */
export function parseXml(text: string): Node {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`Not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  return parser.parse(text) as Node;
}

/** The node at `path` (each step a child name), or undefined. */
export function at(node: unknown, ...path: string[]): unknown {
  let here = node;
  for (const step of path) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Node)[step];
  }
  return here;
}

/** The text of a leaf (an element with attributes keeps it in `#text`). */
export function textAt(node: unknown, ...path: string[]): string | null {
  const v = at(node, ...path);
  if (v === undefined || v === null) return null;
  if (typeof v === "object") {
    const t = (v as Node)["#text"];
    return t === undefined ? null : String(t);
  }
  const s = String(v).trim();
  return s === "" ? null : s;
}

export const listAt = (node: unknown, ...path: string[]): Node[] => {
  const v = at(node, ...path);
  return Array.isArray(v) ? (v as Node[]) : v && typeof v === "object" ? [v as Node] : [];
};
