-- The global catalog of estate, room and equipment types, shared by every tenant.
-- Ids are fixed (UUID v5 of "<kind>:<code>") so clients and fixtures may rely on them.
-- Tenant-specific types are event-sourced and projected into the tenant_types read model.
CREATE TABLE IF NOT EXISTS types_catalog (
  id uuid PRIMARY KEY,
  tenant_id uuid NULL,
  kind text NOT NULL CHECK (kind IN ('estate', 'room', 'equipment')),
  code text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS types_catalog_global_code ON types_catalog (kind, code) WHERE tenant_id IS NULL;

INSERT INTO types_catalog (id, tenant_id, kind, code, name) VALUES
  ('5158d101-618e-5b5c-8858-2098913a1f8d', NULL, 'estate', 'apartment', 'Apartment'),
  ('b02ffc70-fb29-556d-a41b-aa9c35c712ef', NULL, 'estate', 'house', 'House'),
  ('0d09325f-d6bf-542c-9d9a-ebe1c7496904', NULL, 'estate', 'studio', 'Studio'),
  ('8b926fc7-b960-584f-930d-63c442dd52c8', NULL, 'estate', 'room', 'Room'),
  ('2ad07397-3ad8-5725-a757-f210b3ea8ed3', NULL, 'estate', 'parking', 'Parking'),
  ('67a5e34e-17ed-52be-8f01-2e58f2667bad', NULL, 'estate', 'cellar', 'Cellar'),
  ('61fe5c84-6ef8-55c5-8da9-c05da8f4cc86', NULL, 'estate', 'commercial_premises', 'Commercial premises'),
  ('5677c35e-b5ce-5842-a953-fc0824eb103b', NULL, 'estate', 'office', 'Office'),
  ('dda9696c-baca-5917-b13c-efbb838f05e1', NULL, 'estate', 'land', 'Land'),
  ('b46aeb4b-5cd6-5edb-896a-982271427e45', NULL, 'room', 'living_room', 'Living room'),
  ('a8f4139e-e518-5fa4-a209-40777506e0a0', NULL, 'room', 'bedroom', 'Bedroom'),
  ('cf1c6e42-bb27-566c-93e3-a3c0e8a3727b', NULL, 'room', 'kitchen', 'Kitchen'),
  ('118531a8-43df-5824-b294-90a22915f9b7', NULL, 'room', 'bathroom', 'Bathroom'),
  ('06749ade-ada5-5f75-8450-f42e067abc94', NULL, 'room', 'toilet', 'Toilet'),
  ('42fd6f0b-3d65-5a57-8618-910268e7616a', NULL, 'room', 'hallway', 'Hallway'),
  ('801c52d7-babe-5c6a-b97a-765bfef32ced', NULL, 'room', 'office', 'Office'),
  ('336361ad-a31b-5141-8c27-30b367a9b8c1', NULL, 'room', 'dining_room', 'Dining room'),
  ('24d2c51e-4518-5c2a-8b07-f4f41ccaad67', NULL, 'room', 'laundry', 'Laundry'),
  ('e70afe5d-8db9-5082-99f9-074a732a7474', NULL, 'room', 'balcony', 'Balcony'),
  ('80fed217-fbcf-51b1-9d1e-cf16dc3ba81d', NULL, 'room', 'terrace', 'Terrace'),
  ('20ac6fe3-d4db-51fd-a9ae-0e4af6a755e0', NULL, 'room', 'garage', 'Garage'),
  ('c800b6b9-975a-5f74-adf2-bdf63bd71ee8', NULL, 'room', 'cellar', 'Cellar'),
  ('c19ca419-7aa2-53a7-8fd9-a9d3baa64e4a', NULL, 'room', 'attic', 'Attic'),
  ('28588c53-a803-5188-a800-976158f519f9', NULL, 'equipment', 'oven', 'Oven'),
  ('ee3b19a3-c1ca-573f-94d5-d3d171bce41e', NULL, 'equipment', 'hob', 'Hob'),
  ('ddb16574-7bb0-5536-a890-598402b90be0', NULL, 'equipment', 'microwave', 'Microwave'),
  ('434e233a-2895-5a07-ab6a-6fe91223bc36', NULL, 'equipment', 'fridge', 'Fridge'),
  ('22e61708-6747-5611-b723-39913f5f26f9', NULL, 'equipment', 'freezer', 'Freezer'),
  ('f293d491-7cc2-5d31-9076-41bc16a0b859', NULL, 'equipment', 'dishwasher', 'Dishwasher'),
  ('6f3b20d4-157e-557b-86e2-27186f33eb83', NULL, 'equipment', 'washing_machine', 'Washing machine'),
  ('2767332a-bbad-58b7-b758-92676b4a3918', NULL, 'equipment', 'dryer', 'Dryer'),
  ('119df86d-abc5-5fd4-94f3-f9c575d80183', NULL, 'equipment', 'hood', 'Extractor hood'),
  ('57ff6f81-39a7-57f3-97c9-7241d692b634', NULL, 'equipment', 'boiler', 'Boiler'),
  ('d07a2375-dcaf-5c27-9254-9fdcce55c248', NULL, 'equipment', 'water_heater', 'Water heater'),
  ('06943b1f-71df-5244-abd1-6f5295afe8e8', NULL, 'equipment', 'radiator', 'Radiator'),
  ('9e0e2b10-0664-571e-ba1b-a23970ecff01', NULL, 'equipment', 'air_conditioning', 'Air conditioning'),
  ('2022801f-ccbc-5014-8f9f-3f0467c2aec1', NULL, 'equipment', 'heat_pump', 'Heat pump'),
  ('b18fa45a-aeef-5483-a119-03f87d838ba4', NULL, 'equipment', 'smoke_detector', 'Smoke detector'),
  ('f531e71b-6d1a-53f2-91a0-b46a1d86dd54', NULL, 'equipment', 'intercom', 'Intercom'),
  ('ef6d0ba6-b526-5c23-9c81-52d2dd0419d6', NULL, 'equipment', 'furniture', 'Furniture'),
  ('6b8c4af8-87b2-5b93-a14d-e9636452d386', NULL, 'equipment', 'bed', 'Bed and bedding'),
  ('a6b905f5-2c37-571a-a68a-e24cf46b666a', NULL, 'equipment', 'wardrobe', 'Wardrobe'),
  ('2cad1615-2aa2-5e6b-982a-0d53a18fe9e8', NULL, 'equipment', 'table_and_chairs', 'Table and chairs'),
  ('f998b44f-229c-5397-93b0-7ecf6ba1af5d', NULL, 'equipment', 'sofa', 'Sofa'),
  ('9f9bf961-e3b6-522f-9a1a-1f1f4ee6a126', NULL, 'equipment', 'storage_shelves', 'Storage shelves'),
  ('09e12ce1-5e32-5674-87b8-5ee9767af8ed', NULL, 'equipment', 'lighting', 'Lighting'),
  ('e41c21b9-66ab-5d6b-9ba4-762981478c12', NULL, 'equipment', 'window_blackout', 'Window blackout (curtains, shutters)'),
  ('5fd76ef6-75d2-565f-b076-6b80ef20922d', NULL, 'equipment', 'tableware', 'Tableware'),
  ('2f7c2a91-42ad-5a3c-bba1-17c7b35b8031', NULL, 'equipment', 'kitchen_utensils', 'Kitchen utensils'),
  ('26fd90e6-9bca-534f-bc13-60f64051f293', NULL, 'equipment', 'cleaning_equipment', 'Cleaning equipment'),
  ('b0e45bdb-e438-552c-ab90-db6e8fa2cb2b', NULL, 'equipment', 'television', 'Television'),
  ('79d54d96-7c2b-5a10-8209-03f8ba62c78d', NULL, 'equipment', 'internet_box', 'Internet box')
ON CONFLICT (id) DO NOTHING;

-- Not a tenant-scoped table (global rows only): every tenant's reader may see it.
GRANT SELECT ON types_catalog TO pms_reader;
