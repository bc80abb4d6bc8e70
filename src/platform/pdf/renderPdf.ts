import { createRequire } from "node:module";
import type { Content, TDocumentDefinitions, TFontDictionary } from "pdfmake/interfaces.js";

/**
 * pdfmake 0.2 on Node, sandboxed (docs/pdf.md): it is given fonts as in-memory buffers and a
 * document whose every image is an embedded PNG/JPEG data URL. pdfmake itself never fetches URLs
 * (0.2 has no URL resolver), but pdfkit reads any other image string as a local file path, and
 * SVG can reference files: `sandbox()` replaces such nodes with a visible placeholder text.
 */

const require = createRequire(import.meta.url);
type Printer = {
  createPdfKitDocument(doc: TDocumentDefinitions): NodeJS.ReadableStream & { end(): void };
};

/**
 * pdfmake, its fonts and the font parser, loaded at the first render: tens of megabytes that a
 * service rendering no PDF never needs in memory (docs/performance.md).
 */
let loaded: Printer | null = null;
function printer(): Printer {
  if (loaded) return loaded;
  const PdfPrinter = require("pdfmake") as new (fonts: TFontDictionary) => Printer;
  /*
   * pdfkit parses a font file again for every document (fontkit.create on the same buffer): a
   * render then allocates megabytes of font tables that only a major GC frees. The parsed fonts
   * are read-only once built (each document makes its own subset), so they are parsed once per
   * buffer and shared.
   */
  const fontkit = createRequire(require.resolve("@foliojs-fork/pdfkit"))("@foliojs-fork/fontkit") as {
    create: (buffer: Buffer, postscriptName?: string) => unknown;
  };
  const parsed = new WeakMap<Buffer, Map<string, unknown>>();
  const parse = fontkit.create.bind(fontkit);
  fontkit.create = (buffer, postscriptName) => {
    if (!Buffer.isBuffer(buffer)) return parse(buffer, postscriptName);
    let byName = parsed.get(buffer);
    if (!byName) {
      byName = new Map();
      parsed.set(buffer, byName);
    }
    const name = postscriptName ?? "";
    if (!byName.has(name)) byName.set(name, parse(buffer, postscriptName));
    return byName.get(name);
  };
  // Roboto, shipped inside pdfmake as base64 (its browser virtual file system).
  const vfs = require("pdfmake/build/vfs_fonts.js") as Record<string, string>;
  const font = (name: string) => Buffer.from(vfs[name], "base64") as unknown as string;
  loaded = new PdfPrinter({
    Roboto: {
      normal: font("Roboto-Regular.ttf"),
      bold: font("Roboto-Medium.ttf"),
      italics: font("Roboto-Italic.ttf"),
      bolditalics: font("Roboto-MediumItalic.ttf"),
    },
  });
  return loaded;
}

/** The only image sources let through: embedded PNG or JPEG bytes. */
const EMBEDDED_IMAGE = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=\s]+$/;

const placeholder = (what: string, src: unknown): Content => ({
  text: `[${what} non incluse : ${String(src).slice(0, 120)}]`,
  italics: true,
  color: "#777777",
});

/**
 * A copy of the document where every `image` is an embedded data URL (else a placeholder text),
 * `svg` nodes are placeholders, and the `images` dictionary keeps only embedded entries.
 */
export function sandbox(doc: TDocumentDefinitions): TDocumentDefinitions {
  const images: Record<string, string> = {};
  for (const [name, src] of Object.entries(doc.images ?? {})) {
    if (typeof src === "string" && EMBEDDED_IMAGE.test(src)) images[name] = src;
  }
  // Dynamic parts (header, footer, background) are sandboxed as they are produced.
  const guard = (value: unknown): unknown =>
    typeof value === "function" ? (...args: unknown[]) => walk(value(...args)) : walk(value);
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const obj = node as Record<string, unknown>;
    if ("svg" in obj) return placeholder("image SVG", "svg");
    if ("image" in obj) {
      const src = obj.image;
      const ok = typeof src === "string" && (EMBEDDED_IMAGE.test(src) || src in images);
      if (!ok) return placeholder("image", src);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(obj)) out[key] = guard(value);
    return out;
  };
  const safe = guard({ ...doc, images: undefined }) as TDocumentDefinitions;
  return { ...safe, images };
}

/** Renders a pdfmake document (sandboxed) to PDF bytes. */
export function renderPdf(doc: TDocumentDefinitions): Promise<Buffer> {
  const pdf = printer().createPdfKitDocument({ defaultStyle: { font: "Roboto" }, ...sandbox(doc) });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
    pdf.end();
  });
}
