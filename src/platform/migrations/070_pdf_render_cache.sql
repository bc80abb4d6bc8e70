-- The PDF render cache (src/platform/pdf/renderCache.ts, docs/pdf.md): shared by every API
-- instance, one entry per rendered subject (a lease), tenant-scoped, with hit/miss counters per
-- tenant. Entries are a cache only: clearing them never touches the bytes of a PDF record,
-- which live in the blob store under their own key.
CREATE TABLE IF NOT EXISTS pdf_render_cache (
  tenant_id uuid NOT NULL,
  kind text NOT NULL,
  subject_id uuid NOT NULL,
  subject_revision bigint NOT NULL,
  template_version text NOT NULL,
  content_sha256 text NOT NULL,
  content bytea NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, kind, subject_id)
);

CREATE TABLE IF NOT EXISTS pdf_render_cache_counters (
  tenant_id uuid NOT NULL,
  kind text NOT NULL,
  hits bigint NOT NULL DEFAULT 0,
  misses bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, kind)
);
