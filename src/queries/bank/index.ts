import { bankAccountResource } from "../../events/bank/index.ts";
import { resourceQueryRoutes } from "../../platform/resource/routes.ts";

/** GET /api/bank-accounts and one account (FinanceRead). */
const bankAccountQueries = resourceQueryRoutes(bankAccountResource);

/** The bank area's read side (docs/bank.md). */
export const bankQueries = [bankAccountQueries];
