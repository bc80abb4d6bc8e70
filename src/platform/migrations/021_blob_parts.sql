-- Parts of a blob being streamed in (src/platform/blobs/sqlBlobStore.ts, putBlobStream): an
-- upload is written part by part as it arrives, so the service never holds a whole file, then
-- assembled into `blobs` in one transaction that also removes its parts. A refused or broken
-- upload removes its parts; only a crash mid-upload can leave some (keyed like the blob).
CREATE TABLE IF NOT EXISTS blob_parts (
  key text NOT NULL,
  seq integer NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (key, seq)
);
