import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("0000000dIHDR-fake-png-body"),
]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF\0rest")]);
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x1a, 0, 0, 0]), Buffer.from("WEBPVP8 rest")]);

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  content: Buffer | string;
}

function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = `----pms${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += "\r\n";
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    chunks.push(
      Buffer.from(`${head}\r\n`),
      Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content),
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe.each(databaseKinds)("media API on %s", (kind) => {
  let t: TestApp;

  const upload = (parts: Part[], as: TestTenant | null = t.tenant, headers: Record<string, string> = {}) => {
    const { payload, contentType } = multipart(parts);
    return t.app.inject({
      method: "POST",
      url: "/api/media",
      payload,
      headers: {
        "content-type": contentType,
        ...(as ? { authorization: `Bearer ${as.key}` } : {}),
        ...headers,
      },
    });
  };
  const file = (content: Buffer, contentType: string, filename = "doc.bin"): Part => ({
    name: "file",
    filename,
    contentType,
    content,
  });
  const stored = async () => {
    const [m] = await t.sql.query("SELECT count(*)::int AS n FROM media");
    const [b] = await t.sql.query("SELECT count(*)::int AS n FROM blobs");
    return { media: m.n, blobs: b.n };
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("uploads a PDF: 201, Location, metadata; GET metadata; GET the bytes back", async () => {
    const res = await upload([file(PDF, "application/pdf", "DPE Résidence.pdf")]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      filename: "DPE Résidence.pdf",
      content_type: "application/pdf",
      size: PDF.byteLength,
      sha256: createHash("sha256").update(PDF).digest("hex"),
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.headers.location).toBe(`/api/media/${body.id}`);

    const meta = await t.request("GET", `/api/media/${body.id}`);
    expect(meta.statusCode).toBe(200);
    expect(meta.json()).toEqual(body);

    const bytes = await t.request("GET", `/api/media/${body.id}/file`);
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers["content-type"]).toBe("application/pdf");
    expect(bytes.headers["content-disposition"]).toBe(
      `attachment; filename="DPE R_sidence.pdf"; filename*=UTF-8''DPE%20R%C3%A9sidence.pdf`,
    );
    expect(bytes.headers["content-length"]).toBe(String(PDF.byteLength));
    expect(Buffer.compare(bytes.rawPayload, PDF)).toBe(0);
  });

  it.each([
    ["image/jpeg", JPEG, "photo.jpg"],
    ["image/jpg", JPEG, "photo.jpg"],
    ["image/png", PNG, "plan.png"],
    ["image/gif", GIF, "anim.gif"],
    ["image/webp", WEBP, "facade.webp"],
    ["application/octet-stream", PNG, "unknown-type.png"],
  ])("accepts %s by its content", async (declared, content, filename) => {
    const res = await upload([file(content, declared, filename)]);
    expect(res.statusCode, res.body).toBe(201);
    const expected =
      declared === "image/jpg"
        ? "image/jpeg"
        : declared === "application/octet-stream"
          ? "image/png"
          : declared;
    expect(res.json().content_type).toBe(expected);
    const bytes = await t.request("GET", `/api/media/${res.json().id}/file`);
    expect(bytes.headers["content-type"]).toBe(expected);
    expect(Buffer.compare(bytes.rawPayload, content)).toBe(0);
  });

  it.each([
    ["a PNG declared as PDF", PNG, "application/pdf"],
    ["a PDF declared as JPEG", PDF, "image/jpeg"],
    ["text declared as PNG", Buffer.from("just some text"), "image/png"],
    ["an unsupported type", Buffer.from("hello"), "text/plain"],
    ["HTML declared as HTML", Buffer.from("<html><script>alert(1)</script>"), "text/html"],
    ["SVG", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/svg+xml"],
    ["an executable as octet-stream", Buffer.from("MZ\x90\x00"), "application/octet-stream"],
  ])("answers 415 for %s, storing nothing", async (_name, content, declared) => {
    const before = await stored();
    const res = await upload([file(content, declared)]);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error: "UnsupportedMediaType", message: expect.any(String) });
    expect(await stored()).toEqual(before);
  });

  it("answers 413 over 20 MiB, storing nothing", async () => {
    const before = await stored();
    const big = Buffer.alloc(20 * 1024 * 1024 + 1, 0x20);
    PDF.copy(big);
    const res = await upload([file(big, "application/pdf", "big.pdf")]);
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe("PayloadTooLarge");
    expect(await stored()).toEqual(before);
  }, 120_000);

  it("accepts exactly 20 MiB", async () => {
    const max = Buffer.alloc(20 * 1024 * 1024, 0x20);
    PDF.copy(max);
    const res = await upload([file(max, "application/pdf", "max.pdf")]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().size).toBe(20 * 1024 * 1024);
  }, 120_000);

  it("400 for a missing or empty file or unknown fields; 415 for a non-multipart body; never 500", async () => {
    const before = await stored();
    const noFile = await upload([{ name: "description", content: "x" }]);
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().details).toEqual(
      expect.arrayContaining([
        { field: "description", message: "Unknown field" },
        { field: "file", message: "A file is required" },
      ]),
    );
    const wrongField = await upload([
      { name: "document", filename: "a.pdf", contentType: "application/pdf", content: PDF },
    ]);
    expect(wrongField.statusCode).toBe(400);
    const empty = await upload([file(Buffer.alloc(0), "application/pdf")]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details).toEqual([{ field: "file", message: "The file is empty" }]);
    const json = await t.request("POST", "/api/media", { body: { file: "JVBERi0=" } });
    expect(json.statusCode).toBe(415);
    const none = await t.request("POST", "/api/media");
    expect([400, 415]).toContain(none.statusCode);
    const garbage = await t.app.inject({
      method: "POST",
      url: "/api/media",
      payload: "--x\r\ngarbage without headers",
      headers: { "content-type": "multipart/form-data; boundary=x", authorization: `Bearer ${t.tenant.key}` },
    });
    expect(garbage.statusCode).toBeGreaterThanOrEqual(400);
    expect(garbage.statusCode).toBeLessThan(500);
    const noBoundary = await t.app.inject({
      method: "POST",
      url: "/api/media",
      payload: "abc",
      headers: { "content-type": "multipart/form-data", authorization: `Bearer ${t.tenant.key}` },
    });
    expect(noBoundary.statusCode).toBeGreaterThanOrEqual(400);
    expect(noBoundary.statusCode).toBeLessThan(500);
    expect(await stored()).toEqual(before);
  });

  it("cleans the file name", async () => {
    const res = await upload([file(PDF, "application/pdf", "../../etc/passwd")]);
    expect(res.json().filename).toBe("passwd");
    const nameless = await upload([{ name: "file", filename: "", contentType: "image/png", content: PNG }]);
    expect([201, 400]).toContain(nameless.statusCode);
  });

  it("another tenant's media answers 404; unknown ids 404; malformed ids 400", async () => {
    const res = await upload([file(PDF, "application/pdf", "mine.pdf")]);
    const { id } = res.json();
    for (const url of [`/api/media/${id}`, `/api/media/${id}/file`]) {
      expect((await t.request("GET", url, { as: t.other })).statusCode).toBe(404);
    }
    expect((await t.request("GET", `/api/media/${UNKNOWN}`)).json()).toEqual({
      error: "NotFound",
      message: `Media ${UNKNOWN} not found`,
    });
    expect((await t.request("GET", `/api/media/${UNKNOWN}/file`)).statusCode).toBe(404);
    expect((await t.request("GET", "/api/media/nope")).statusCode).toBe(400);
  });

  it("needs PropertiesWrite to upload and PropertiesRead to read", async () => {
    const reader = await t.newTenant(undefined, ["PropertiesRead"]);
    expect((await upload([file(PDF, "application/pdf")], reader)).statusCode).toBe(403);
    expect((await upload([file(PDF, "application/pdf")], null)).statusCode).toBe(401);
  });

  it("links to an energy diagnosis (same tenant only)", async () => {
    const place = (await t.request("POST", "/api/places", { body: { name: "Immeuble" } })).json().id;
    const media = (await upload([file(PDF, "application/pdf", "dpe.pdf")])).json().id;
    const body = {
      place_id: place,
      reference_number: "DPE-LINK",
      diagnosis_date: "2024-01-01",
      valid_until: "2034-01-01",
      energy_label: "C",
      ges_label: "C",
      construction_year: 1990,
      media_id: media,
    };
    const res = await t.request("POST", "/api/energy-diagnoses", { body });
    expect(res.statusCode).toBe(201);
    expect(res.json().media_id).toBe(media);
    const foreignPlace = (
      await t.request("POST", "/api/places", { body: { name: "Autre" }, as: t.other })
    ).json().id;
    const stolen = await t.request("POST", "/api/energy-diagnoses", {
      body: { ...body, place_id: foreignPlace },
      as: t.other,
    });
    expect(stolen.statusCode).toBe(422);
    expect(stolen.json().details).toEqual([{ field: "media_id", message: `Media ${media} not found` }]);
  });
  it("honours Idempotency-Key: the same file replays, another file is a 409, no key uploads twice", async () => {
    const before = await stored();
    const key = { "idempotency-key": `media-${crypto.randomUUID()}` };
    const first = await upload([file(PDF, "application/pdf", "bail.pdf")], t.tenant, key);
    expect(first.statusCode, first.body).toBe(201);
    const again = await upload([file(PDF, "application/pdf", "bail.pdf")], t.tenant, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect(await stored()).toEqual({ media: before.media + 1, blobs: before.blobs + 1 });

    const other = await upload([file(PNG, "image/png", "bail.png")], t.tenant, key);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toBe("Conflict");
    expect(await stored()).toEqual({ media: before.media + 1, blobs: before.blobs + 1 });

    const plain = [
      await upload([file(PDF, "application/pdf")]),
      await upload([file(PDF, "application/pdf")]),
    ];
    expect(plain.map((r) => r.statusCode)).toEqual([201, 201]);
    expect(plain[0].json().id).not.toBe(plain[1].json().id);
  });
});
