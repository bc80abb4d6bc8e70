import { renderInThread } from "./renderInThread.ts";
import { documentOf, markupToContent } from "./renderTemplate.ts";

/** A document's PDF bytes (A4) from its markup (./renderTemplate.ts), rendered on a render thread. */
export function renderMarkup(markup: string, title: string): Promise<Buffer> {
  return renderInThread(import.meta.url, "renderMarkupHere", { markup, title });
}

/** What a render thread runs: pdfmake is loaded there, never on the API thread. */
export async function renderMarkupHere(input: { markup: string; title: string }): Promise<Buffer> {
  const { renderPdf } = await import("./renderPdf.ts");
  return renderPdf(documentOf(markupToContent(input.markup), { title: input.title }));
}
