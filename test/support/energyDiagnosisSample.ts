/** A valid DPE (2021 method, 64.2 m², D/C) for tests; spread it with a place_id or an estate_id. */
export const DPE_SAMPLE = {
  reference_number: "DPE-2301E0123456X",
  diagnosis_date: "2024-03-15",
  valid_until: "2034-03-15",
  energy_label: "D",
  ges_label: "C",
  construction_year: 1968,
  energy_consumption: 212.4,
  final_energy_consumption: 195.3,
  ges_emission: 18,
  heated_area: 64.2,
} as const;
