import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderPdf, sandbox } from "../../src/platform/pdf/renderPdf.ts";
import { compileTemplate, markupToContent, neutralise } from "../../src/platform/pdf/renderTemplate.ts";
import { pdfText } from "../support/pdfText.ts";

/** A 1×1 red PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);
const DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

/** Embedded images are XObjects of subtype Image (uncompressed dictionaries, readable as latin1). */
const imageCount = (pdf: Buffer) => (pdf.toString("latin1").match(/\/Subtype \/Image/g) ?? []).length;

describe("PDF renderer sandbox", () => {
  let requests = 0;
  let url = "";
  let filePath = "";
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "image/png" });
    res.end(PNG);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/logo.png`;
    filePath = join(mkdtempSync(join(tmpdir(), "pms-pdf-")), "logo.png");
    writeFileSync(filePath, PNG);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("a template naming an image URL or a file path renders without fetching or reading it", async () => {
    const render = compileTemplate<{ logo: string; file: string }>(
      "# Titre\n\n![logo]({{logo}})\n\n![fichier]({{file}})\n\nFin du document.",
    );
    const markup = render({ logo: url, file: filePath });
    const pdf = await renderPdf({ content: markupToContent(markup) });
    expect(requests).toBe(0);
    expect(imageCount(pdf)).toBe(0);
    const text = await pdfText(pdf);
    expect(text).toContain(`[image non incluse : ${url}]`);
    expect(text).toContain(`[image non incluse : ${filePath}]`);
    expect(text).toContain("Fin du document.");
  });

  it("a raw document naming them (node, images dictionary, SVG, footer) is sandboxed too", async () => {
    const pdf = await renderPdf({
      images: { logo: filePath, remote: url },
      content: [
        { image: "logo" },
        { image: "remote" },
        { image: filePath, width: 10 },
        { stack: [{ columns: [{ image: url }] }] },
        { svg: `<svg xmlns="http://www.w3.org/2000/svg"><image href="${filePath}"/></svg>` },
      ],
      footer: () => ({ image: filePath }),
    });
    expect(requests).toBe(0);
    expect(imageCount(pdf)).toBe(0);
    expect(await pdfText(pdf)).toContain("[image SVG non incluse");
  });

  it("embedded PNG data URLs are kept, directly or through the images dictionary", async () => {
    const pdf = await renderPdf({
      images: { logo: DATA_URL },
      content: [{ image: DATA_URL }, { image: "logo" }],
    });
    expect(imageCount(pdf)).toBeGreaterThanOrEqual(1);
    expect(sandbox({ images: { a: DATA_URL, b: filePath }, content: [] }).images).toEqual({ a: DATA_URL });
  });

  it("data from the view model cannot open markup: newlines, table bars, bold, images", () => {
    expect(neutralise("a\n# Titre | x **gras** ![i](/etc/passwd)")).toBe(
      "a # Titre / x *gras* ! [i](/etc/passwd)",
    );
    const render = compileTemplate<{ name: string }>("Nom : {{name}}");
    const content = markupToContent(render({ name: "X\n![i](/etc/passwd)\n## Faux titre" }));
    expect(content).toEqual([{ text: "Nom : X ! [i](/etc/passwd) ## Faux titre", style: "paragraph" }]);
  });

  it("renders French text, headings, lists, tables and bold runs", async () => {
    const content = markupToContent(
      "# Bail\n\n## Loyer\n\nMontant : **912,40 €** par mois.\n\n- premier\n- second\n\n| Loyer | Charges |\n| 912,40 € | 85,00 € |\n",
    );
    expect(content.map((c) => (c as { style?: string }).style)).toEqual([
      "h1",
      "h2",
      "paragraph",
      "list",
      "table",
    ]);
    const text = await pdfText(await renderPdf({ content }));
    for (const s of ["Bail", "Loyer", "Montant : 912,40 € par mois.", "premier", "second", "85,00 €"]) {
      expect(text).toContain(s);
    }
  });

  it("keeps a bold run's punctuation and a hyphenated word in one inline (no justified gap before a comma or inside a word)", () => {
    const [paragraph] = markupToContent(
      "**Hélène Marchand**, personne physique, celui-ci : elle-même, avant",
    ) as {
      text: { text: { text: string; bold?: boolean; noWrap?: boolean }[] };
    }[];
    expect(paragraph.text.text).toEqual([
      { text: "Hélène Marchand,", bold: true },
      { text: " personne physique, " },
      { text: "celui-ci ", noWrap: true },
      { text: ": " },
      { text: "elle-même, ", noWrap: true },
      { text: "avant" },
    ]);
    // Plain text without either stays a string.
    expect(markupToContent("Loyer mensuel : 912,40 €.")).toEqual([
      { text: "Loyer mensuel : 912,40 €.", style: "paragraph" },
    ]);
  });
});
