import { z } from "zod";
import { MEDIA_CONTENT_TYPES } from "../platform/blobs/uploads.ts";
import { defineResource, type ResourceEvent, type ResourceFields } from "../platform/resource/resource.ts";

export { MEDIA_CONTENT_TYPES, type MediaContentType } from "../platform/blobs/uploads.ts";

export const mediaStream = (id: string) => `media-${id}`;

/**
 * Uploaded files (DESIGN.md §7): stream `media-<uuid>`, one `MediaUploaded` each. Created only by
 * the multipart upload (src/commands/media/routes.ts), never changed; the bytes are in the blob
 * store under `blob_key`, which no answer shows (the store is a port: the key is opaque).
 */
export const mediaResource = defineResource({
  name: "media",
  stream: mediaStream,
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
  routes: ["get"],
  summaries: { get: "Get a media's metadata (its bytes are at /api/media/{media_id}/file)" },
  events: { created: "MediaUploaded", updated: "MediaChanged", deleted: "MediaDeleted" },
  commands: { create: "RecordMediaUpload", update: "ChangeMedia", delete: "DeleteMedia" },
});

export type MediaMetadata = ResourceFields<typeof mediaResource>;
export type MediaEvent = ResourceEvent<typeof mediaResource>;
