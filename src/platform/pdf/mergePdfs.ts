import { PDFDocument } from "pdf-lib";

/** One part of a bound document: a PDF's pages, or a JPEG/PNG scan set on a page of its own. */
export interface PdfPart {
  bytes: Uint8Array;
  content_type: string;
}

const A4 = { width: 595.28, height: 841.89 };

/**
 * Binds the parts into one PDF, in order (pdf-lib copies the pages; nothing is re-rendered, so each
 * part keeps its own bytes' content). A part of another kind, or one that cannot be read (a damaged
 * upload), is left out: the caller lists every part with its hash.
 */
export async function mergePdfs(parts: readonly PdfPart[]): Promise<Buffer> {
  const bound = await PDFDocument.create();
  for (const part of parts) await bindPart(bound, part).catch(() => undefined);
  return Buffer.from(await bound.save());
}

async function bindPart(bound: PDFDocument, part: PdfPart): Promise<void> {
  if (part.content_type === "application/pdf") {
    const source = await PDFDocument.load(part.bytes, { ignoreEncryption: true });
    const pages = await bound.copyPages(source, source.getPageIndices());
    for (const page of pages) bound.addPage(page);
  } else if (part.content_type === "image/jpeg" || part.content_type === "image/png") {
    const image =
      part.content_type === "image/jpeg"
        ? await bound.embedJpg(part.bytes)
        : await bound.embedPng(part.bytes);
    const scale = Math.min(1, (A4.width - 40) / image.width, (A4.height - 40) / image.height);
    const { width, height } = image.scale(scale);
    const page = bound.addPage([A4.width, A4.height]);
    page.drawImage(image, { x: (A4.width - width) / 2, y: (A4.height - height) / 2, width, height });
  }
}
