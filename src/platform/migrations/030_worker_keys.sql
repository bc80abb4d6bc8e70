-- Keys of background workers (docs/security.md): each acts for one tenant, sent in X-API-Key,
-- accepted only by routes declaring `access: "worker"`; a tenant key is never a worker key.
CREATE TABLE IF NOT EXISTS worker_keys (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS worker_keys_tenant ON worker_keys (tenant_id);
