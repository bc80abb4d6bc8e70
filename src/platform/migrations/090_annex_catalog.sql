-- The global catalog of lease annexes (docs/signing.md, "Annexes"), shared by every tenant.
-- `category`: STATIC_FILE (a text the service ships), GENERATED (made from the estate's records:
-- its DPE and diagnostics), USER_UPLOAD (a file the user uploads). `mandatory_rule` says in words
-- when a residential lease needs it; src/law/annexes.ts decides it.
CREATE TABLE IF NOT EXISTS annex_catalog (
  code text PRIMARY KEY,
  title text NOT NULL,
  category text NOT NULL CHECK (category IN ('STATIC_FILE', 'GENERATED', 'USER_UPLOAD')),
  legal_reference text NOT NULL,
  mandatory_rule text NOT NULL,
  position integer NOT NULL
);

INSERT INTO annex_catalog (code, title, category, legal_reference, mandatory_rule, position) VALUES
  ('NOTICE_INFORMATION', 'Notice d''information relative aux droits et obligations des locataires et des bailleurs', 'STATIC_FILE',
   'loi n° 89-462 du 6 juillet 1989 art. 3; arrêté du 29 mai 2015 (notice d''information)',
   'Always, for a lease under loi n° 89-462', 1),
  ('DPE', 'Diagnostic de performance énergétique', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3 1°; code de la construction et de l''habitation art. L126-26 (10 ans)',
   'Always; valid on the signing date (10 years, earlier end for DPE made before 2021-07-01)', 2),
  ('ERP', 'État des risques et pollutions', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3; code de l''environnement art. L125-5 (moins de six mois)',
   'Always; made less than 6 months before the signing', 3),
  ('CREP', 'Constat de risque d''exposition au plomb', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3 2°; code de la santé publique art. L1334-5 et L1334-7 (6 ans; sans limite s''il est négatif)',
   'Building built before 1949-01-01; valid 6 years, without limit when negative', 4),
  ('ELECTRICITY', 'État de l''installation intérieure d''électricité', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3 4°; décret n° 2016-1105 du 11 août 2016 (installation de plus de 15 ans, 6 ans)',
   'Installation over 15 years old; valid 6 years', 5),
  ('GAS', 'État de l''installation intérieure de gaz', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3 4°; décret n° 2016-1104 du 11 août 2016 (installation de plus de 15 ans, 6 ans)',
   'Gas installation over 15 years old; valid 6 years', 6),
  ('ASBESTOS_DAPP', 'Dossier amiante - parties privatives (DAPP)', 'GENERATED',
   'loi n° 89-462 du 6 juillet 1989 art. 3-3 3°; code de la santé publique art. R1334-29-4 (permis de construire antérieur au 1er juillet 1997)',
   'Building permit before 1997-07-01', 7),
  ('COPROPERTY_EXTRACTS', 'Extraits du règlement de copropriété', 'USER_UPLOAD',
   'loi n° 89-462 du 6 juillet 1989 art. 3 (extraits du règlement de copropriété)',
   'Dwelling in a copropriété', 8),
  ('ENTRY_CONDITION_REPORT', 'État des lieux d''entrée', 'USER_UPLOAD',
   'loi n° 89-462 du 6 juillet 1989 art. 3-2 (état des lieux d''entrée)',
   'Always', 9),
  ('INVENTORY', 'Inventaire et état détaillé du mobilier', 'USER_UPLOAD',
   'loi n° 89-462 du 6 juillet 1989 art. 25-5 (inventaire et état détaillé du mobilier)',
   'Furnished lease (furnished, mobility, student)', 10),
  ('OTHER', 'Autre annexe', 'USER_UPLOAD',
   'loi n° 89-462 du 6 juillet 1989 art. 3',
   'Never mandatory', 11)
ON CONFLICT (code) DO NOTHING;
GRANT SELECT ON annex_catalog TO pms_reader;
