-- When each part of a streamed upload was written: parts whose upload stopped writing long ago
-- (a crash mid-upload) are swept by the `blob-parts-sweep` job (docs/operations.md).
ALTER TABLE blob_parts ADD COLUMN IF NOT EXISTS written_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX IF NOT EXISTS blob_parts_written_at ON blob_parts (written_at);
