-- IRL (indice de référence des loyers, INSEE) values shipped with the service, 2022-Q1..2025-Q3
-- (docs/rent-regulation.md). Platform data shared by every tenant, read-only here: later quarters
-- and corrections are IrlValuePublished events (PUT /api/rent-regulation/irl/{quarter}), projected
-- into irl_values, which take precedence over this table.
CREATE TABLE IF NOT EXISTS irl_shipped (
  quarter text PRIMARY KEY CHECK (quarter ~ '^[0-9]{4}-Q[1-4]$'),
  value numeric(8, 2) NOT NULL CHECK (value > 0),
  -- loi n° 2022-1158 du 16 août 2022, art. 12: the year-on-year change of 2022-Q3..2024-Q1 was
  -- capped at 3.5 % (2.5 % in Corsica, 5 % overseas); the published values already carry it.
  note text
);

INSERT INTO irl_shipped (quarter, value, note) VALUES
  ('2022-Q1', 133.93, NULL),
  ('2022-Q2', 135.84, NULL),
  ('2022-Q3', 136.27, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2022-Q4', 137.26, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2023-Q1', 138.61, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2023-Q2', 140.59, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2023-Q3', 141.03, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2023-Q4', 142.06, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2024-Q1', 143.46, 'capped at +3.5 % a year (loi n° 2022-1158, art. 12)'),
  ('2024-Q2', 145.17, NULL),
  ('2024-Q3', 144.51, NULL),
  ('2024-Q4', 144.64, NULL),
  ('2025-Q1', 145.47, NULL),
  ('2025-Q2', 146.68, NULL),
  ('2025-Q3', 145.77, NULL)
ON CONFLICT (quarter) DO NOTHING;

GRANT SELECT ON irl_shipped TO pms_reader;
