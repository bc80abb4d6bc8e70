import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { LesseeEvent } from "../../events/lessees.ts";
import { lesseeStream } from "../../events/lessees.ts";
import { legalToday } from "../../law/calendar.ts";
import { LEASE_LIMITATION_YEARS, lesseeErasureVerdicts } from "../../law/retention.ts";
import type { Verdict } from "../../law/verdict.ts";
import { fold } from "../../platform/decider.ts";
import { notFound } from "../../platform/errors.ts";
import { latestPosition, type RecordedEvent } from "../../platform/eventstore/eventStore.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, metadataOf, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers } from "../../platform/http/responses.ts";
import {
  addressesIn,
  type ErasureDeps,
  eraseKeptMentions,
  eraseWhereNamed,
} from "../../platform/personalData/erasure.ts";
import { destroySubjectKey } from "../../platform/personalData/keyring.ts";
import { eraseBody, erasureBody } from "../../platform/resource/personalRoutes.ts";
import { type CommandContext, runCommand } from "../../platform/runCommand.ts";
import { erasureCandidates, lesseeErasureFacts } from "../../queries/lesseePrivacy.ts";
import { uuidSchema } from "../../queries/lesseesSchemas.ts";
import { lesseeDecider } from "./decider.ts";
import { lesseeEmailsOf } from "./handlers.ts";

/**
 * POST /api/lessees/{id}/erase (GDPR art. 17, docs/personal-data.md): refused with the retention
 * that applies (422), else `PersonalDataErased` is appended (who, when, why) and the lessee's data
 * key destroyed, after which every personal field of its events reads null everywhere.
 */

// The body and the answer are the kit's (src/platform/resource/personalRoutes.ts): one shape for every subject.

export async function lesseeEraseRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;

  api.post(
    "/api/lessees/:id/erase",
    {
      schema: {
        tags: ["Lessees"],
        summary:
          "Erase a lessee's personal data for good (GDPR art. 17); 409 while a legal retention applies (a lease in progress, an unpaid balance, loi n° 89-462 art. 7-1)",
        params: z.strictObject({ id: uuidSchema }),
        body: eraseBody,
        response: answers(erasureBody),
      },
      config: { access: "LesseeDelete", invalidBodyMessage: "Invalid erasure request" },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const tenantId = tenantOf(request);
      const retention = lesseeErasureVerdicts(await lesseeErasureFacts(sql, tenantId, id), legalToday());
      const result = await handleCommand(
        request,
        lesseeStream(id),
        lesseeDecider,
        {
          type: "EraseLesseePersonalData",
          lessee_id: id,
          reason: request.body.reason,
          erased_by: request.auth?.user?.subject ?? request.auth?.key_id ?? null,
          now: new Date().toISOString(),
          retention,
        },
        { reserving: lesseeEmailsOf(id), notFound: () => notFound("Lessee", id) },
      );
      // After the event, so an erasure is never without its audit; again on a repeat (idempotent).
      await destroySubjectKey(sql, tenantId, lesseeStream(id));
      // Its addresses as read before the key went (the stream the command was decided on).
      const named = await eraseWhereNamed(
        app.platform,
        tenantId,
        lesseeStream(id),
        metadataOf(request),
        addressesIn(result.stream),
      );
      const erased_at = erasedAt(result.stream);
      return replyAfterProjection(request, reply, {
        position: latestPosition([result.position, named]),
        status: 200,
        id,
        read: async () => ({ id, erased_at, retention }),
      });
    },
  );
}

const erasedAt = (stream: readonly RecordedEvent<LesseeEvent>[]) => {
  const state = fold(lesseeDecider, stream);
  return ("erased_at" in state && state.erased_at) || new Date().toISOString();
};

export const RETENTION_QUEUE = "personal-data-retention";

/**
 * The retention job (docs/personal-data.md): the lessees whose every retention is over, judged
 * again by the law on fresh facts; with `erase`, each is erased as the route would (reason
 * "retention period over"), and what the areas kept at earlier erasures because a lease still
 * needed it is erased once it no longer does (`kept_rerun`: the erasures run again). Safe to run
 * twice: an erased lessee is no candidate, a repeat is a no-op.
 */
export async function runRetention(
  deps: ErasureDeps,
  options: { erase: boolean; tenantId: string | null; today?: string },
) {
  const today = options.today ?? legalToday();
  const candidates = await erasureCandidates(deps.sql, {
    today,
    years: LEASE_LIMITATION_YEARS,
    tenantId: options.tenantId,
  });
  const due: { tenant_id: string; lessee_id: string; retention: Verdict[] }[] = [];
  for (const c of candidates) {
    const retention = lesseeErasureVerdicts(
      await lesseeErasureFacts(deps.sql, c.tenant_id, c.lessee_id),
      today,
    );
    if (!retention.some((v) => v.status === "FAIL")) due.push({ ...c, retention });
  }
  const erased: string[] = [];
  if (options.erase) {
    for (const d of due) {
      const context: CommandContext = {
        store: deps.store,
        tenant_id: d.tenant_id,
        metadata: {
          tenant_id: d.tenant_id,
          actor_key_id: null,
          correlation_id: `${RETENTION_QUEUE}-${today}`,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      };
      const result = await runCommand(
        context,
        lesseeStream(d.lessee_id),
        lesseeDecider,
        {
          type: "EraseLesseePersonalData",
          lessee_id: d.lessee_id,
          reason: "Retention period over (retention job)",
          erased_by: RETENTION_QUEUE,
          now: context.metadata.occurred_at,
          retention: d.retention,
        },
        { reserving: lesseeEmailsOf(d.lessee_id) },
      );
      await destroySubjectKey(deps.sql, d.tenant_id, lesseeStream(d.lessee_id));
      await eraseWhereNamed(
        deps,
        d.tenant_id,
        lesseeStream(d.lessee_id),
        context.metadata,
        addressesIn(result.stream),
      );
      erased.push(d.lessee_id);
    }
  }
  // What was kept at earlier erasures (a lease's records it still needed) and may go now.
  const kept_rerun = options.erase
    ? await eraseKeptMentions(deps, options.tenantId, () => ({
        actor_key_id: null,
        correlation_id: `${RETENTION_QUEUE}-${today}`,
        causation_id: null,
        occurred_at: new Date().toISOString(),
      }))
    : 0;
  return {
    today,
    due: due.map(({ tenant_id, lessee_id }) => ({ tenant_id, lessee_id })),
    erased,
    kept_rerun,
  };
}
