import { z } from "zod";
import { estateContractFields } from "../events/estates.ts";
import { amount, notNull, text, timestampWithin, uuid } from "../platform/http/schemas.ts";

/**
 * A date-time (ISO 8601, with or without zone; no zone means UTC) or a plain date; stored as UTC.
 * From the year 1000: many French buildings are older than the dates' 1900 (docs/security.md).
 */
const dateTime = timestampWithin("1000-01-01");

const readOnly = (field: string) => z.never({ error: `${field} is read-only` }).optional();

/** Fields maintained by the service: sending them is a 400 (docs/architecture.md §6 Estates). */
const readOnlyFields = {
  rental_status: readOnly("rental_status"),
  previous_owner_id: readOnly("previous_owner_id"),
  current_dpe_id: readOnly("current_dpe_id"),
  current_dpe_energy_label: readOnly("current_dpe_energy_label"),
  current_dpe_ges_label: readOnly("current_dpe_ges_label"),
  current_dpe_diagnosis_date: readOnly("current_dpe_diagnosis_date"),
  current_dpe_valid_until: readOnly("current_dpe_valid_until"),
};

const optionalFields = {
  number_of_room: z.number().int("Must be an integer").min(0).max(1000).nullish(),
  orientation: text(50).nullish(),
  building: text(100).nullish(),
  floor: z.number().int("Must be an integer").min(-20).max(300).nullish(),
  owner_id: uuid().nullish(),
  lot_number: text(50).nullish(),
  housing_tax: amount.nullish(),
  property_tax: amount.nullish(),
  acquisition_price: amount.nullish(),
  rent_amount: amount.nullish(),
  construction_date: dateTime.nullish(),
  renovation_date: dateTime.nullish(),
  address: text(1000).nullish(),
  other_detail: text(5000).nullish(),
  ...estateContractFields,
};

const name = text(255);
const area = z.number().finite().gt(0, "Must be greater than 0").max(1e7);
const fiscalIdentifier = text(50);

export const createEstateSchema = z
  .strictObject({
    name,
    estate_type_id: uuid(),
    area,
    fiscal_identifier: fiscalIdentifier,
    /** Accepted when equal to the path place. */
    place_id: uuid().optional(),
    ...optionalFields,
    ...readOnlyFields,
  })
  .meta({ id: "NewEstate" });

export const updateEstateSchema = z
  .strictObject({
    name: notNull(name, "name").optional(),
    estate_type_id: notNull(uuid(), "estate_type_id").optional(),
    area: notNull(area, "area").optional(),
    fiscal_identifier: notNull(fiscalIdentifier, "fiscal_identifier").optional(),
    place_id: notNull(uuid(), "place_id").optional(),
    ...optionalFields,
    ...readOnlyFields,
  })
  .meta({ id: "EstateChanges" });

export type CreateEstateInput = z.output<typeof createEstateSchema>;
export type UpdateEstateInput = z.output<typeof updateEstateSchema>;
