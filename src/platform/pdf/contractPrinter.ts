import type { Sql } from "../db.ts";
import type { Position } from "../eventstore/eventStore.ts";
import type { CommandContext } from "../runCommand.ts";

/**
 * The lease contract's printer as another area may call it: signing prints the contract of the
 * lease's current version when none exists, so what is signed is always the current contract. The
 * leases area provides it (src/areas.ts); the platform names no area (docs/decisions.md).
 */
export type ContractPrinter = (
  context: CommandContext & { sql: Sql },
  leaseId: string,
) => Promise<{ pdf_id: string; sha256: string; filename: string; position: Position | null }>;

let printer: ContractPrinter | null = null;

export function provideContractPrinter(print: ContractPrinter): void {
  printer = print;
}

export function printContract(context: CommandContext & { sql: Sql }, leaseId: string) {
  if (!printer) throw new Error("No contract printer: src/areas.ts provides it");
  return printer(context, leaseId);
}
