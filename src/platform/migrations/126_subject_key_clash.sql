-- An append that brings a new data key for a subject who already has another one (a concurrent
-- first write elsewhere, or a key destroyed by an erasure) fails with SQLSTATE PMS21: the writer
-- then takes the stored key (or the erasure) and seals its events again (docs/personal-data.md).
CREATE OR REPLACE FUNCTION pms_subject_key_clash(tenant uuid, subject text) RETURNS bytea
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'subject % of tenant % already has a data key', subject, tenant USING ERRCODE = 'PMS21';
END
$$;
