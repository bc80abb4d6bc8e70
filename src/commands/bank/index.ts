import { bankAccountCommandRoutes } from "./accounts.ts";

/** The bank area's write side (docs/bank.md): bank accounts, statement imports and matching. */
export const bankCommandRoutes = [bankAccountCommandRoutes];
