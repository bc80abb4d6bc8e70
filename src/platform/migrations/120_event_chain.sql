-- Tamper evidence (docs/audit.md): each event carries the SHA-256 of its line (RFC 8785 canonical
-- JSON of the event with previous_hash, without hash) and the hash of the event before it in its
-- stream. Rows written before this migration have NULL here until `pms audit backfill` chains them
-- (resumable, stream by stream); an append to such a stream chains it first.
ALTER TABLE events ADD COLUMN IF NOT EXISTS previous_hash text;
ALTER TABLE events ADD COLUMN IF NOT EXISTS hash text;
CREATE INDEX IF NOT EXISTS events_unchained ON events (stream_name) WHERE hash IS NULL;

-- The hashes of one write to one stream, in order, from the stream's head (revision and hash) as
-- the append statement read it. The line is spliced from pieces Node made canonical (data,
-- metadata, stream name, type); event_id::text and integers print canonically as they are. The
-- unique index on (stream_name, stream_revision) refuses a second write chained on the same head.
CREATE OR REPLACE FUNCTION pms_event_chain(
  events json, metadata text[], stream_json text, head_revision bigint, head_hash text
) RETURNS TABLE (
  o_idx integer, o_event_id uuid, o_type text, o_schema_version integer, o_data text,
  o_metadata integer, o_revision bigint, o_previous_hash text, o_hash text
)
LANGUAGE plpgsql AS $$
DECLARE
  e record;
  previous text := head_hash;
  revision bigint := coalesce(head_revision, -1);
BEGIN
  IF head_revision IS NOT NULL AND head_hash IS NULL THEN
    RAISE EXCEPTION 'stream % is not chained yet', stream_json USING ERRCODE = 'PMS20';
  END IF;
  FOR e IN
    SELECT * FROM json_to_recordset(events) AS r(
      idx integer, event_id uuid, type text, type_json text, schema_version integer, data text, metadata integer)
    ORDER BY r.idx
  LOOP
    revision := revision + 1;
    o_hash := encode(sha256(convert_to(
      '{"data":' || e.data || ',"event_id":"' || e.event_id::text || '","metadata":' || metadata[e.metadata + 1]
      || ',"previous_hash":' || coalesce('"' || previous || '"', 'null')
      || ',"schema_version":' || e.schema_version::text || ',"stream_name":' || stream_json
      || ',"stream_revision":' || revision::text || ',"type":' || e.type_json || '}', 'UTF8')), 'hex');
    o_idx := e.idx;
    o_event_id := e.event_id;
    o_type := e.type;
    o_schema_version := e.schema_version;
    o_data := e.data;
    o_metadata := e.metadata;
    o_revision := revision;
    o_previous_hash := previous;
    RETURN NEXT;
    previous := o_hash;
  END LOOP;
END $$;

-- The daily roots (docs/audit.md, "Daily roots"): per tenant and Paris day, the Merkle root over
-- the heads of the streams written that day; the heads are kept to give proofs.
CREATE TABLE IF NOT EXISTS audit_stream_heads (
  tenant_id text NOT NULL,
  day date NOT NULL,
  stream_name text NOT NULL,
  stream_revision bigint NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (tenant_id, day, stream_name)
);
CREATE INDEX IF NOT EXISTS audit_stream_heads_stream ON audit_stream_heads (tenant_id, stream_name, day);
CREATE TABLE IF NOT EXISTS audit_roots (
  tenant_id text NOT NULL,
  day date NOT NULL,
  root text NOT NULL,
  streams integer NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, day)
);
-- How far the roots job has read the log.
CREATE TABLE IF NOT EXISTS audit_checkpoint (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL
);
