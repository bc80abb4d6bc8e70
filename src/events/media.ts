import { z } from "zod";
import { MEDIA_CONTENT_TYPES } from "../platform/blobs/uploads.ts";
import { defineResource, type ResourceFields } from "../platform/resource/resource.ts";

/** Uploaded files (docs/design.md §7), never changed; the bytes are in the blob store under `blob_key` (hidden). */
export const mediaResource = defineResource({
  name: "media",
  stream: (id) => `media-${id}`,
  label: "Media",
  table: "media",
  path: "/api/media",
  tag: "Media",
  access: { read: "PropertiesRead", write: "PropertiesWrite", delete: "PropertiesWrite" },
  fields: {
    filename: z.string(),
    content_type: z.enum(MEDIA_CONTENT_TYPES),
    size: z.number().int(),
    sha256: z.string(),
    blob_key: z.string(),
  },
  hidden: ["blob_key"],
  timestamps: ["created_at"],
  routes: ["create", "get"],
  summaries: {
    create: "Upload a file (multipart/form-data, field `file`): PDF, JPEG, PNG, GIF or WebP, at most 20 MiB",
    get: "Get a media's metadata (its bytes are at /api/media/{media_id}/file)",
  },
  events: { created: "MediaUploaded", updated: "MediaChanged", deleted: "MediaDeleted" },
  commands: { create: "RecordMediaUpload", update: "ChangeMedia", delete: "DeleteMedia" },
});

export type MediaMetadata = ResourceFields<typeof mediaResource>;
