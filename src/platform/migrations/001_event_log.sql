-- The event log: the only source of truth.
-- Global order is (transaction_id, position): position comes from a sequence at insert time,
-- but transactions commit out of order, so readers never read past the oldest running
-- transaction (pg_snapshot_xmin) and order by the committing transaction first.
CREATE TABLE IF NOT EXISTS events (
  position bigserial PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id uuid NOT NULL,
  stream_name text NOT NULL,
  stream_revision bigint NOT NULL,
  type text NOT NULL,
  schema_version integer NOT NULL DEFAULT 1,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_name, stream_revision);
CREATE UNIQUE INDEX IF NOT EXISTS events_event_id ON events (event_id);
CREATE INDEX IF NOT EXISTS events_global_order ON events (transaction_id, position);

CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name text PRIMARY KEY,
  version integer NOT NULL,
  commit_position bigint NOT NULL DEFAULT 0,
  prepare_position bigint NOT NULL DEFAULT 0,
  events_applied bigint NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'running',
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Read models are read through this restricted role, bound to one tenant by row-level security.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pms_reader') THEN
    CREATE ROLE pms_reader NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$;
DO $$
BEGIN
  EXECUTE format('GRANT pms_reader TO %I', current_user);
EXCEPTION WHEN OTHERS THEN NULL;
END $$;
GRANT USAGE ON SCHEMA public TO pms_reader;
