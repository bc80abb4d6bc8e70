import type { FastifyRequest } from "fastify";
import { type AccountEvent, type LeaseAccount, leaseAccountStream } from "../../events/rentCycle.ts";
import {
  latestPosition,
  type Position,
  type StreamWrite,
  WrongExpectedRevisionError,
} from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { commandContext, handleCommand } from "../../platform/http/handleCommand.ts";
import { mapLimit } from "../../platform/mapLimit.ts";
import { loadStreams, toNewEvents } from "../../platform/runCommand.ts";
import { type BankPaymentCommand, bankPaymentDecider } from "./payments.ts";

/**
 * Settles bank payment commands on the lease accounts they name (docs/bank.md, "Speed"): the
 * accounts are read in one read, each decided on its state (all its commands in order), and
 * appended together, a chunk of accounts per all-or-nothing write, each at the revision it was
 * read at. A chunk that meets an account moved meanwhile writes nothing and goes again account by
 * account through the command handler (read, decide, append, retried on a conflict). The decider
 * skips a payment id the account holds, so neither path ever counts a line twice. Returns the
 * position of the last write: the answer waits for it alone (read-your-writes), positions being
 * ordered.
 */
const CHUNK = 1000;

export async function settleOnLeaseAccounts(
  request: FastifyRequest,
  commands: readonly BankPaymentCommand[],
): Promise<Position | null> {
  const byLease = new Map<string, BankPaymentCommand[]>();
  for (const c of commands) {
    const list = byLease.get(c.lease_id);
    if (list) list.push(c);
    else byLease.set(c.lease_id, [c]);
  }
  const leases = [...byLease.keys()];
  const positions: (Position | null)[] = [];
  for (let i = 0; i < leases.length; i += CHUNK) {
    const chunk = leases.slice(i, i + CHUNK);
    positions.push(await settleChunk(request, chunk, byLease));
  }
  return latestPosition(positions);
}

/** An account's new events: its commands decided in order, each on the state the previous left. */
export function decideOnAccount(
  account: LeaseAccount,
  commands: readonly BankPaymentCommand[],
): AccountEvent[] {
  const events: AccountEvent[] = [];
  let state = account;
  for (const command of commands) {
    const decided = bankPaymentDecider.decide(command, state);
    state = decided.reduce(bankPaymentDecider.evolve, state);
    events.push(...decided);
  }
  return events;
}

async function settleChunk(
  request: FastifyRequest,
  leases: readonly string[],
  byLease: ReadonlyMap<string, readonly BankPaymentCommand[]>,
): Promise<Position | null> {
  const { store } = request.server.platform;
  if (store.appendToStreams) {
    const context = commandContext(request);
    const streams = leases.map(leaseAccountStream);
    const loaded = await loadStreams(store, streams, tenantOf(request), bankPaymentDecider);
    // Another tenant's account: the command handler refuses it as it would one by one.
    if (loaded.every((l) => !l.foreign)) {
      const writes: StreamWrite[] = [];
      leases.forEach((lease, i) => {
        const events = decideOnAccount(loaded[i].state, byLease.get(lease) ?? []);
        if (events.length === 0) return;
        writes.push({
          stream_name: streams[i],
          events: toNewEvents(context.metadata, events, context.event_ids?.(streams[i])),
          expected_revision: loaded[i].revision ?? "no_stream",
        });
      });
      if (writes.length === 0) return null;
      try {
        const results = await store.appendToStreams(writes);
        return latestPosition(results.map((r) => r.position));
      } catch (error) {
        // An account moved since it was read (a payment typed meanwhile): nothing was written.
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
  }
  const commands = leases.flatMap((lease) => byLease.get(lease) ?? []);
  const results = await mapLimit(commands, 16, (c) =>
    handleCommand(request, leaseAccountStream(c.lease_id), bankPaymentDecider, c),
  );
  return latestPosition(results.map((r) => r.position));
}
