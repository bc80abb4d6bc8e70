import { ownerResource } from "../../events/owners.ts";
import { BIC_PATTERN, emailProblem, ibanProblem } from "../../platform/http/schemas.ts";

export const createOwnerSchema = ownerResource.createSchema;
export const updateOwnerSchema = ownerResource.updateSchema;

export const isValidEmail = (email: string) => emailProblem(email) === null;
export const isValidIban = (iban: string) => ibanProblem(iban) === null;
export const isValidBic = (bic: string) => BIC_PATTERN.test(bic);
