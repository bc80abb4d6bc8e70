import { describe, expect, it } from "vitest";
import { mediaDecider } from "../../src/commands/media/decider.ts";
import type { MediaMetadata } from "../../src/events/media.ts";
import { cleanFilename, decideContentType, sniffContentType } from "../../src/platform/blobs/uploads.ts";
import { deciderSpec } from "../support/deciderSpec.ts";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

const samples = {
  "application/pdf": bytes("%PDF-1.7\n%âãÏÓ\n"),
  "image/jpeg": bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], "JFIF"),
  "image/png": bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], "IHDR"),
  "image/gif": bytes("GIF89a", [1, 0, 1, 0]),
  "image/webp": bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "),
} as const;

describe("sniffContentType", () => {
  it.each(Object.entries(samples))("recognises %s", (type, content) => {
    expect(sniffContentType(content)).toBe(type);
  });
  it("recognises GIF87a", () => expect(sniffContentType(bytes("GIF87a"))).toBe("image/gif"));
  it.each([
    ["empty", bytes()],
    ["text", bytes("hello world")],
    ["html", bytes("<html><body>")],
    ["RIFF that is not WebP", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt ")],
    ["truncated PNG", bytes([0x89, 0x50, 0x4e])],
    ["zip", bytes("PK", [3, 4])],
  ])("answers null for %s", (_name, content) => {
    expect(sniffContentType(content)).toBeNull();
  });
});

describe("decideContentType", () => {
  it("accepts content matching its declared type (aliases, parameters and case tolerated)", () => {
    expect(decideContentType("application/pdf", samples["application/pdf"])).toEqual({
      ok: true,
      content_type: "application/pdf",
    });
    expect(decideContentType("image/jpg", samples["image/jpeg"])).toEqual({
      ok: true,
      content_type: "image/jpeg",
    });
    expect(decideContentType("Image/PNG; charset=binary", samples["image/png"])).toEqual({
      ok: true,
      content_type: "image/png",
    });
  });
  it("lets the content decide when the declared type says nothing", () => {
    expect(decideContentType("application/octet-stream", samples["image/gif"])).toEqual({
      ok: true,
      content_type: "image/gif",
    });
    expect(decideContentType(undefined, samples["image/webp"])).toEqual({
      ok: true,
      content_type: "image/webp",
    });
  });
  it("refuses content that does not match its declared type", () => {
    expect(decideContentType("application/pdf", samples["image/png"]).ok).toBe(false);
    expect(decideContentType("image/jpeg", bytes("%PDF-fake but declared jpeg")).ok).toBe(false);
    expect(decideContentType("image/png", bytes("not an image")).ok).toBe(false);
  });
  it("refuses unsupported types even with a matching magic", () => {
    expect(decideContentType("text/plain", bytes("hello")).ok).toBe(false);
    expect(decideContentType("image/svg+xml", bytes("<svg/>")).ok).toBe(false);
    expect(decideContentType("text/html", samples["application/pdf"]).ok).toBe(false);
    expect(decideContentType("application/octet-stream", bytes("MZ")).ok).toBe(false);
  });
});

describe("cleanFilename", () => {
  it("keeps a plain name, strips directories and control characters", () => {
    expect(cleanFilename("dpe 2025.pdf", "application/pdf")).toBe("dpe 2025.pdf");
    expect(cleanFilename("../../etc/passwd", "application/pdf")).toBe("passwd");
    expect(cleanFilename("C:\\Users\\me\\photo.jpg", "image/jpeg")).toBe("photo.jpg");
    expect(cleanFilename("a\u0000b\r\n.png", "image/png")).toBe("ab.png");
    expect(cleanFilename("x".repeat(300), "image/png")).toHaveLength(255);
    expect(cleanFilename("a\ud800b.pdf", "application/pdf")).toBe("ab.pdf");
    expect(cleanFilename("plan 🏠.pdf", "application/pdf")).toBe("plan 🏠.pdf");
  });
  it("names a nameless file after its type", () => {
    expect(cleanFilename(undefined, "image/webp")).toBe("file.webp");
    expect(cleanFilename("..", "application/pdf")).toBe("file.pdf");
  });
});

describe("media decider", () => {
  const media_id = "9e000000-0000-4000-8000-000000000001";
  const input: MediaMetadata = {
    filename: "dpe.pdf",
    content_type: "application/pdf",
    size: 1234,
    sha256: "ab".repeat(32),
    blob_key: "tenants/t/media/9e000000-0000-4000-8000-000000000001",
  };
  const spec = deciderSpec(mediaDecider);
  it("records an upload once", () => {
    spec
      .given([])
      .when({ type: "RecordMediaUpload", media_id, input })
      .then([{ type: "MediaUploaded", data: { media_id, ...input } }]);
    spec
      .given([{ type: "MediaUploaded", data: { media_id, ...input } }])
      .when({ type: "RecordMediaUpload", media_id, input })
      .thenRefuses(409);
  });
});
