import { type MediaEvent, mediaEventTypes } from "../events/media.ts";
import { type Projection, rowProjection, tenantPolicy } from "../platform/projections/projection.ts";

const COLUMNS = [
  "tenant_id",
  "id",
  "filename",
  "content_type",
  "size",
  "sha256",
  "blob_key",
  "created_at",
  "revision",
] as const;

/** The `media` read model: metadata of uploaded files; the bytes are in the blob store under blob_key. */
export const mediaProjection: Projection = rowProjection<MediaEvent>({
  name: "media",
  version: 1,
  table: "media",
  columns: COLUMNS,
  schema: `
CREATE TABLE media (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  filename text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  created_at timestamptz NOT NULL,
  revision bigint NOT NULL
);
CREATE INDEX media_order ON media (tenant_id, created_at, id);
${tenantPolicy("media")}`,
  handles: mediaEventTypes,
  idOf: (event) => event.data.media_id,
  evolve(row, event) {
    switch (event.type) {
      case "MediaUploaded": {
        const { media_id: _id, ...data } = event.data;
        return { ...data, created_at: event.metadata.occurred_at, revision: Number(event.stream_revision) };
      }
      default:
        return row;
    }
  },
});
