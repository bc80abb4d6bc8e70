import { ApiError } from "../errors.ts";

/**
 * Uploaded files (media, lease documents): the accepted content types, recognised by their magic
 * bytes, the size limit and safe file names.
 */

/** Content types the service stores, each recognised by its magic bytes. */
export const MEDIA_CONTENT_TYPES = [
  "application/pdf",
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
] as const;
export type MediaContentType = (typeof MEDIA_CONTENT_TYPES)[number];

/** 20 MiB (docs/architecture.md §4); larger uploads answer 413. */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024;

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The content type the bytes themselves say, from their magic numbers, or null when they are
 * none of the accepted types. The declared type of an upload is never trusted alone.
 */
export function sniffContentType(bytes: Uint8Array): MediaContentType | null {
  if (startsWith(bytes, ascii("%PDF-"))) return "application/pdf";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return null;
}

/** Names clients use for the accepted types, normalised; parameters (`; charset=`) dropped. */
const ALIASES: Record<string, MediaContentType> = {
  "application/pdf": "application/pdf",
  "application/x-pdf": "application/pdf",
  "image/jpeg": "image/jpeg",
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/png": "image/png",
  "image/x-png": "image/png",
  "image/gif": "image/gif",
  "image/webp": "image/webp",
};

/** Declared types that say nothing about the content: the sniffed type decides alone. */
const UNSPECIFIC = new Set(["", "application/octet-stream", "binary/octet-stream"]);

export type ContentTypeDecision =
  | { ok: true; content_type: MediaContentType }
  | { ok: false; message: string };

/**
 * Accepts an upload when its content is an accepted type and the declared type (if it says
 * anything) names the same type. Otherwise the caller answers 415.
 */
export function decideContentType(declared: string | undefined, bytes: Uint8Array): ContentTypeDecision {
  const name = (declared ?? "").split(";")[0].trim().toLowerCase();
  const sniffed = sniffContentType(bytes);
  if (!UNSPECIFIC.has(name) && !(name in ALIASES)) {
    return {
      ok: false,
      message: `Unsupported content type ${name}; accepted: ${MEDIA_CONTENT_TYPES.join(", ")}`,
    };
  }
  if (!sniffed) {
    return { ok: false, message: `File content is none of ${MEDIA_CONTENT_TYPES.join(", ")}` };
  }
  if (!UNSPECIFIC.has(name) && ALIASES[name] !== sniffed) {
    return { ok: false, message: `File content is ${sniffed}, not the declared ${name}` };
  }
  return { ok: true, content_type: sniffed };
}

/** A safe display name: no directories, no control characters, at most 255 characters. */
export function cleanFilename(raw: string | undefined, contentType: MediaContentType): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  // Iterating by code point leaves unpaired surrogates as single units: they go with the controls.
  const cleaned = [...base]
    .filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return code >= 0x20 && code !== 0x7f && !(code >= 0xd800 && code <= 0xdfff);
    })
    .join("")
    .trim()
    .slice(0, 255);
  if (cleaned && cleaned !== "." && cleaned !== "..") return cleaned;
  const ext = {
    "application/pdf": "pdf",
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
  }[contentType];
  return `file.${ext}`;
}

/** How many first bytes `sniffContentType` reads. */
export const SNIFF_BYTES = 16;

/**
 * The chunks of an uploaded file stream as they arrive; 413 once the multipart parser cut the
 * file at its size limit (it reads no further), so the caller never holds more than a chunk.
 */
export async function* withinLimit(
  file: AsyncIterable<Uint8Array> & { truncated?: boolean },
  limit = MAX_MEDIA_BYTES,
): AsyncGenerator<Uint8Array> {
  const tooLarge = () =>
    new ApiError("PayloadTooLarge", `The file is larger than ${limit / (1024 * 1024)} MiB`);
  let size = 0;
  for await (const chunk of file) {
    size += chunk.byteLength;
    if (file.truncated || size > limit) throw tooLarge();
    yield chunk;
  }
  if (file.truncated) throw tooLarge();
}

/** The first `n` bytes of a stream (fewer when it is shorter), and the whole stream again from its start. */
export async function peekBytes(
  source: AsyncIterable<Uint8Array>,
  n: number,
): Promise<{ head: Buffer; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < n) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    seen.push(next.value);
    length += next.value.byteLength;
  }
  async function* chunks() {
    yield* seen;
    if (done) return;
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.(); // a consumer that stops early ends the source too
    }
  }
  return { head: Buffer.concat(seen).subarray(0, n), chunks: chunks() };
}
