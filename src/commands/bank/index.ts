import { bankAccountCommandRoutes } from "./accounts.ts";

export { bankSettlementLoop } from "./settleLoop.ts";

import { collectionRoutes } from "./collections.ts";
import { mandateRoutes } from "./mandates.ts";
import { statementRoutes } from "./statements.ts";

/** The bank area's write side (docs/bank.md): bank accounts, statement imports and the queue. */
export const bankCommandRoutes = [bankAccountCommandRoutes, statementRoutes, mandateRoutes, collectionRoutes];
