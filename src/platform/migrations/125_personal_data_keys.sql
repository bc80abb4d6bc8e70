-- One data key per data subject (a lessee, owner or contact), outside the event log
-- (docs/personal-data.md). `wrapped_key` is the subject's AES-256 key sealed with the master
-- key (PMS_DATA_KEY); erasure sets it to NULL for good (crypto-shredding, GDPR art. 17).
-- On EventStoreDB the log lives elsewhere and this table stays in the read-model PostgreSQL.
CREATE TABLE IF NOT EXISTS personal_data_keys (
  tenant_id uuid NOT NULL,
  subject text NOT NULL,
  wrapped_key bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  destroyed_at timestamptz,
  PRIMARY KEY (tenant_id, subject),
  CHECK ((wrapped_key IS NULL) = (destroyed_at IS NOT NULL))
);

-- The checkpoint of `pms privacy encrypt-existing` (the in-place encryption of plaintext events
-- written before personal fields were encrypted): the last events.position done.
CREATE TABLE IF NOT EXISTS personal_data_migration (
  name text PRIMARY KEY,
  last_position bigint NOT NULL DEFAULT 0,
  events_encrypted bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
