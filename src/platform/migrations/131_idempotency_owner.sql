-- The process running a request under an Idempotency-Key (src/platform/http/idempotency.ts): the
-- name of a session advisory lock that process holds. Its lock gone (the process crashed), the
-- same request sent again takes the key over at once instead of after a minute.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS owner text;
