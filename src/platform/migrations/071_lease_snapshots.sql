-- Snapshots of a lease's replay for `as_of` (docs/leases.md, "Audit replay"): written by the lease
-- commands every 100 revisions (src/commands/leases/snapshots.ts), read by src/queries/leases.ts.
-- A cache of what the lease's events say: removing rows loses nothing but speed. `version` names
-- the replay code that wrote the state; `max_occurred_at` is the latest occurred_at folded in.
CREATE TABLE IF NOT EXISTS lease_snapshots (
  tenant_id uuid NOT NULL,
  lease_id uuid NOT NULL,
  version integer NOT NULL,
  revision bigint NOT NULL,
  max_occurred_at timestamptz NOT NULL,
  state jsonb NOT NULL,
  PRIMARY KEY (lease_id, version, revision)
);
ALTER TABLE lease_snapshots ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON lease_snapshots TO pms_reader;
CREATE POLICY lease_snapshots_tenant ON lease_snapshots TO pms_reader
  USING (tenant_id = nullif(current_setting('pms.tenant_id', true), '')::uuid);
