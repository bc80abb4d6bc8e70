-- The shipped IRL values with their source and, where confirmed, INSEE's publication date
-- (docs/rent-regulation.md). Every shipped quarter (2022-Q1..2025-Q3) is confirmed by the table of
-- INSEE's Informations rapides n° 254 of 2025-10-15; only 2025-Q3's own publication day is
-- confirmed, the others keep published_on NULL (never a guessed date). Later quarters
-- (2025-Q4 onwards) are not shipped: none was confirmed, they arrive by PUT /api/rent-regulation/irl/{quarter}.
ALTER TABLE irl_shipped ADD COLUMN IF NOT EXISTS published_on date;
ALTER TABLE irl_shipped ADD COLUMN IF NOT EXISTS source_reference text;

UPDATE irl_shipped
  SET source_reference = 'INSEE, Informations rapides n° 254 du 15 octobre 2025 (indice de référence des loyers), série des derniers trimestres'
  WHERE quarter BETWEEN '2022-Q1' AND '2025-Q3' AND source_reference IS NULL;
UPDATE irl_shipped SET published_on = DATE '2025-10-15' WHERE quarter = '2025-Q3' AND published_on IS NULL;
