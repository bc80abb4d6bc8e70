-- A projector batch moves its checkpoints with a compare-and-set and no lock taken first
-- (docs/performance.md, "Projector round trips"): this fails the batch's transaction when a
-- checkpoint no longer says what the runtime last wrote (another instance or a rebuild moved it).
CREATE OR REPLACE FUNCTION pms_checkpoints_moved(expected integer, moved bigint) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  IF moved <> expected THEN
    RAISE EXCEPTION 'projection checkpoint moved under this batch (% of % as expected)', moved, expected
      USING ERRCODE = 'PMS01';
  END IF;
  RETURN moved;
END $$;
