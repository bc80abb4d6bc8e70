import { bankAccountResource } from "../../events/bank/index.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";
import { resourceCommandRoutes } from "../../platform/resource/routes.ts";

/** A bank account of a lessor or agency: IBAN, BIC and creditor identifier checked by their schemas. */
export const bankAccountDecider = resourceDecider(bankAccountResource);

/** POST, PUT and DELETE of /api/bank-accounts (Finance permissions). */
export const bankAccountCommandRoutes = resourceCommandRoutes(bankAccountResource, bankAccountDecider);
