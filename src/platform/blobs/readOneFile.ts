import type { FastifyRequest } from "fastify";
import { ApiError, unsupportedMediaType, validationError } from "../errors.ts";
import { MAX_MEDIA_BYTES } from "./uploads.ts";

/** A multipart body of exactly one file, in the field `file`, read into memory (20 MiB at most). */

export interface Upload {
  bytes: Buffer;
  filename: string | undefined;
  mimetype: string | undefined;
  /** The text fields named in `fields`, when sent. */
  fields: Record<string, string>;
}

/** Reads every part: exactly one file in the field `file`, no other fields than `fields`. */
export async function readOneFile(request: FastifyRequest, fields: readonly string[] = []): Promise<Upload> {
  if (!request.isMultipart()) throw unsupportedMediaType("Expected multipart/form-data with a file field");
  let upload: Omit<Upload, "fields"> | null = null;
  const texts: Record<string, string> = {};
  const unknown: string[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: MAX_MEDIA_BYTES } })) {
      if (part.type === "file") {
        // Throws FST_REQ_FILE_TOO_LARGE (413) past the limit; the stream must be drained either way.
        const bytes = await part.toBuffer();
        if (part.fieldname === "file" && !upload)
          upload = { bytes, filename: part.filename, mimetype: part.mimetype };
        else unknown.push(part.fieldname);
      } else if (fields.includes(part.fieldname) && !(part.fieldname in texts)) {
        texts[part.fieldname] = String(part.value);
      } else {
        unknown.push(part.fieldname);
      }
    }
  } catch (error) {
    // The multipart plugin's own errors carry a status (413 and the like); the parser's
    // ("Boundary not found", "Unexpected end of form") do not: they are the client's malformed body.
    const status = (error as { statusCode?: unknown })?.statusCode;
    if (error instanceof ApiError || (typeof status === "number" && status < 500)) throw error;
    throw validationError("Malformed multipart body", [
      { field: "body", message: String((error as Error)?.message) },
    ]);
  }
  const details = unknown.map((field) => ({ field, message: "Unknown field" }));
  if (!upload) details.push({ field: "file", message: "A file is required" });
  else if (upload.bytes.byteLength === 0) details.push({ field: "file", message: "The file is empty" });
  if (details.length > 0 || !upload) throw validationError("Invalid upload", details);
  return { ...upload, fields: texts };
}
