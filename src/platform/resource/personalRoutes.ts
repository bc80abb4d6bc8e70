import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { type Decider, fold } from "../decider.ts";
import { notFound } from "../errors.ts";
import { latestPosition } from "../eventstore/eventStore.ts";
import { tenantOf } from "../http/auth.ts";
import { handleCommand, metadataOf, readHistory, replyAfterProjection } from "../http/handleCommand.ts";
import { answers, historyBody, timestamp, verdictBody } from "../http/responses.ts";
import { uuid } from "../http/schemas.ts";
import { addressesIn, eraseWhereNamed } from "../personalData/erasure.ts";
import { destroySubjectKey } from "../personalData/keyring.ts";
import type { EraseCommand, Facts, ResourceCommand, ResourceState, RetentionVerdict } from "./decider.ts";
import { readResource } from "./read.ts";
import type { Resource, ResourceEvent } from "./resource.ts";

/**
 * The personal-data routes of a resource declaring `personalData` (docs/personal-data.md):
 * `POST <item>/erase` (GDPR art. 17) in `src/commands/<area>/`, `GET <item>/export` (art. 15 and
 * 20) in `src/queries/<area>.ts`. The lessee's hand-written routes answer the same shapes.
 */

export const eraseBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1, "Must not be empty")
    .max(1000, "Must be at most 1000 characters")
    .describe(
      "Why the data is erased (the data subject's request, end of retention, ...): kept in the audit",
    ),
});

export const erasureBody = z
  .strictObject({
    id: uuid(),
    erased_at: z.string().describe("When the personal data was erased (ISO 8601 UTC)"),
    retention: z.array(verdictBody).describe("The retentions checked, each a verdict of the law"),
  })
  .meta({ id: "PersonalDataErasure" });

type Params = Record<string, string>;
const paramsOf = (path: string) => ({
  params: z.strictObject(Object.fromEntries([...path.matchAll(/:(\w+)/g)].map((m) => [m[1], uuid()]))),
});

/** Who erases: the user, else the API key (the audit's `erased_by`). */
export const eraserOf = (request: FastifyRequest) =>
  request.auth?.user?.subject ?? request.auth?.key_id ?? null;

export interface EraseRouteOptions {
  /** The retentions that apply today (the law's verdicts on facts the area looks up). */
  retention: (
    request: FastifyRequest,
    c: { tenantId: string; id: string; params: Params },
  ) => Promise<RetentionVerdict[]>;
  summary: string;
}

/**
 * POST <item>/erase {reason}, the resource's delete access: 409 naming each retention that
 * applies, else the erasure event (who, when, why, the verdicts), then the subject's key destroyed
 * (again on a repeat, which appends nothing: idempotent). 200 `PersonalDataErasure`.
 */
export function resourceEraseRoute<R extends Resource, X extends Facts = Facts>(
  resource: R,
  decider: Decider<ResourceState<R>, ResourceCommand<R, X>, ResourceEvent<R>>,
  options: EraseRouteOptions,
) {
  const { path, idKey, parentKey, label, access, personalData } = resource;
  if (!personalData) throw new Error(`${label} declares no personalData`);
  const url = `${path}/:${idKey}/erase`;
  return async (app: FastifyInstance) => {
    const { sql } = app.platform;
    app.post(
      url,
      {
        schema: {
          tags: [resource.tag],
          summary: options.summary,
          ...paramsOf(url),
          body: eraseBody,
          response: answers(erasureBody),
        },
        config: { access: access.delete, invalidBodyMessage: "Invalid erasure request" },
      },
      async (request, reply) => {
        const params = request.params as Params;
        const id = params[idKey];
        const tenantId = tenantOf(request);
        const retention = await options.retention(request, { tenantId, id, params });
        const command: EraseCommand = {
          type: personalData.erase,
          [idKey]: id,
          ...(parentKey ? { [parentKey]: params[parentKey] } : {}),
          reason: (request.body as { reason: string }).reason,
          erased_by: eraserOf(request),
          now: new Date().toISOString(),
          retention,
        };
        const result = await handleCommand(
          request,
          resource.stream(id),
          decider,
          command as unknown as ResourceCommand<R, X>,
          { notFound: () => notFound(label, id) },
        );
        // After the event, so an erasure is never without its audit; again on a repeat.
        await destroySubjectKey(sql, tenantId, resource.stream(id));
        // Messages and signing processes naming the subject (docs/personal-data.md).
        const named = await eraseWhereNamed(
          app.platform,
          tenantId,
          resource.stream(id),
          metadataOf(request),
          addressesIn(result.stream),
        );
        const state = fold(decider, result.stream);
        const erased_at = ("erased_at" in state && state.erased_at) || command.now;
        return replyAfterProjection(request, reply, {
          position: latestPosition([result.position, named]),
          status: 200,
          id,
          read: async () => ({ id, erased_at, retention }),
        });
      },
    );
  };
}

/**
 * GET <item>/export, the resource's read access: everything held about the subject as JSON,
 * `{exported_at, subject: {type, id}, <name>: the resource as GET shows it (null once deleted),
 * history: every event of its stream, decrypted (null fields once erased)}`; `more` adds the
 * area's own sections (e.g. what other areas hold about it).
 */
export function resourceExportRoute<R extends Resource>(
  resource: R,
  options: {
    more?: {
      shape: Record<string, z.ZodType>;
      read: (
        request: FastifyRequest,
        c: { tenantId: string; id: string },
      ) => Promise<Record<string, unknown>>;
    };
  } = {},
) {
  const { path, idKey, name, label, access } = resource;
  const url = `${path}/:${idKey}/export`;
  const exportBody = z
    .strictObject({
      exported_at: timestamp,
      subject: z.strictObject({ type: z.literal(name), id: uuid() }),
      [name]: resource.body.nullable().describe(`The ${name} as the API shows it; null once deleted`),
      ...options.more?.shape,
      history: historyBody,
    })
    .meta({ id: `${label}Export`, description: `Everything held about the ${name} (GDPR art. 15 and 20)` });
  return async (app: FastifyInstance) => {
    const { sql } = app.platform;
    app.get(
      url,
      {
        schema: {
          tags: [resource.tag],
          summary: `Everything held about the ${name}, as JSON (GDPR art. 15 access and art. 20 portability)`,
          ...paramsOf(url),
          response: answers(exportBody),
        },
        config: { access: access.read },
      },
      async (request) => {
        const params = request.params as Params;
        const id = params[idKey];
        const tenantId = tenantOf(request);
        // The log says whether it ever existed here (a deleted one is still a subject).
        const history = await readHistory(request, resource.stream(id), () => notFound(label, id));
        const found = await readResource(sql, resource, tenantId, id);
        if (found && resource.parentKey && found.parent_id !== params[resource.parentKey])
          throw notFound(label, id);
        const more = (await options.more?.read(request, { tenantId, id })) ?? {};
        return {
          exported_at: new Date().toISOString(),
          subject: { type: name, id },
          [name]: found?.body ?? null,
          ...more,
          history,
        };
      },
    );
  };
}
