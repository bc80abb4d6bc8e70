import { z } from "zod";
import { notNull, text } from "../../platform/http/schemas.ts";

const address = {
  address_street: text(255).nullish(),
  address_postal_code: text(20).nullish(),
  address_city: text(255).nullish(),
  address_country: text(100).nullish(),
};

export const createPlaceSchema = z.strictObject({
  name: text(255),
  description: text(2000).nullish(),
  ...address,
});

export const updatePlaceSchema = z.strictObject({
  name: notNull(text(255), "name").optional(),
  description: text(2000).nullish(),
  ...address,
});

export type CreatePlaceInput = z.output<typeof createPlaceSchema>;
export type UpdatePlaceInput = z.output<typeof updatePlaceSchema>;
