import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

/**
 * The text of a PDF, every page, whitespace collapsed so wrapped phrases match. Read with pdf.js
 * (pure JavaScript), so the tests need no poppler-utils on the machine. Pieces of text on one line
 * are joined with a space only where the page leaves a gap between them, as pdftotext does.
 */
export async function pdfText(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    let text = "";
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      let end: { x: number; y: number } | null = null;
      for (const item of content.items) {
        if (!("str" in item)) continue;
        const [x, y] = [item.transform[4], item.transform[5]];
        const gap = end === null || Math.abs(y - end.y) > 1 || x - end.x > 0.5;
        text += (gap ? " " : "") + item.str;
        end = { x: x + item.width, y };
      }
    }
    return text.replace(/\s+/g, " ").trim();
  } finally {
    await doc.destroy();
  }
}
