-- Events a projection could not apply, set aside for their tenant (docs/architecture.md,
-- "Quarantine"): written in the same transaction as the checkpoint that passes them, so after a
-- crash an event is either applied, or quarantined, or still ahead of the checkpoint.
-- `held_by`: the event of the same stream this one waits behind (it did not fail itself).
CREATE TABLE IF NOT EXISTS projection_quarantine (
  projection text NOT NULL,
  version integer NOT NULL,
  event_id uuid NOT NULL,
  stream_name text NOT NULL,
  stream_revision bigint NOT NULL,
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  tenant_id uuid NOT NULL,
  event_type text NOT NULL,
  error text NOT NULL,
  held_by uuid,
  attempts integer NOT NULL DEFAULT 1,
  quarantined_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (projection, version, event_id)
);
CREATE INDEX IF NOT EXISTS projection_quarantine_stream ON projection_quarantine (projection, version, stream_name);
CREATE INDEX IF NOT EXISTS projection_quarantine_tenant ON projection_quarantine (tenant_id);
