import { setTimeout as sleep } from "node:timers/promises";
import { creditLedgerStream, packageOf, purchaseIdOf } from "../../events/credits.ts";
import type { Sql } from "../../platform/db.ts";
import { ApiError, validationError } from "../../platform/errors.ts";
import {
  type EventStore,
  type Position,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { isUuid } from "../../platform/ids.ts";
import { oneAtATime } from "../../platform/oneAtATime.ts";
import type { CompletedCheckout } from "../../platform/payments/paymentProvider.ts";
import { type CommandContext, runCommand } from "../../platform/runCommand.ts";
import { findTenant } from "../../platform/tenants/tenants.ts";
import { type CreditCommand, creditDecider } from "./decider.ts";

/** Rounds of lost races before giving up (each is runCommand's five tries on fresh state). */
const ROUNDS = 50;

/**
 * Credits a verified, paid checkout on its tenant's ledger (docs/credits.md, "The webhook").
 * The purchase id comes from the provider's session id, so duplicate or concurrent deliveries
 * append once: the others re-read the stream (expected revision), find it, and write nothing.
 * Event ids stay random so that `credited` tells the one delivery that wrote it.
 */
export async function creditPurchase(
  deps: { sql: Sql; store: EventStore },
  provider: string,
  paid: CompletedCheckout,
  correlationId: string | null,
): Promise<{ credited: boolean; purchase_id: string; position: Position | null }> {
  // The tenant and package are our checkout's metadata, signed with the provider's event.
  const pkg = packageOf(paid.package_id ?? "");
  if (!isUuid(paid.tenant_id) || !pkg)
    throw validationError("The checkout carries no tenant or package of this service");
  if (!(await findTenant(deps.sql, paid.tenant_id)))
    throw validationError("The checkout's tenant is unknown to this service");
  if (
    paid.amount_cents !== Math.round(pkg.price * 100) ||
    (paid.currency ?? "").toUpperCase() !== pkg.currency
  )
    throw validationError(
      `The amount paid (${paid.amount_cents} ${paid.currency}) is not the price of package ${pkg.id}`,
    );
  const purchase_id = purchaseIdOf(provider, paid.session_id);
  const context = {
    store: deps.store,
    tenant_id: paid.tenant_id,
    metadata: {
      tenant_id: paid.tenant_id,
      actor_key_id: `payment-provider:${provider}`,
      correlation_id: correlationId,
      causation_id: null,
      occurred_at: new Date().toISOString(),
    },
  };
  const command: CreditCommand = {
    type: "RecordPurchase",
    purchase: {
      purchase_id,
      package_id: pkg.id,
      credits: pkg.credits,
      amount: pkg.price,
      currency: pkg.currency,
      provider,
      provider_session_id: paid.session_id,
      provider_payment_id: paid.payment_id,
      provider_event_id: paid.event_id,
    },
  };
  return oneAtATime(creditLedgerStream(paid.tenant_id), () => append(context, command, purchase_id));
}

async function append(
  context: CommandContext,
  command: CreditCommand,
  purchase_id: string,
): Promise<{ credited: boolean; purchase_id: string; position: Position | null }> {
  for (let round = 1; ; round++) {
    try {
      const result = await runCommand(context, creditLedgerStream(context.tenant_id), creditDecider, command);
      return { credited: result.events.length > 0, purchase_id, position: result.position };
    } catch (error) {
      // runCommand's lost races (a 409 after its five tries); the decider itself never answers 409 here.
      const lost =
        error instanceof WrongExpectedRevisionError ||
        (error instanceof ApiError && error.code === "Conflict");
      if (!lost || round >= ROUNDS) throw error;
      // Jittered backoff: writers racing on one tenant's ledger spread out instead of colliding again.
      await sleep(Math.random() * Math.min(round, 10) * 5);
    }
  }
}
