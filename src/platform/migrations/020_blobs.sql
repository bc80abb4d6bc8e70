-- Binary content (media, lease documents, PDFs) behind the blob store port
-- (src/platform/blobs). Keys are opaque paths that carry the tenant, e.g.
-- `tenants/<tenant_id>/media/<id>`; this table is never read by the restricted reader role,
-- the routes check the owning resource in the caller's tenant first. An S3 adapter can take
-- its place without a change to the callers.
CREATE TABLE IF NOT EXISTS blobs (
  key text PRIMARY KEY,
  content bytea NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
