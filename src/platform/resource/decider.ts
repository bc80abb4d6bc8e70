import { changedFields, type Decider } from "../decider.ts";
import { conflict, type ErrorDetail, fieldError, notFound, validationError } from "../errors.ts";
import type {
  CreateInput,
  Resource,
  ResourceEvent,
  ResourceFields,
  ResourceKeys,
  UpdateInput,
} from "./resource.ts";

/** Facts a route adds to a command (looked up in other areas' read models), per command. */
export interface Facts {
  create?: object;
  update?: object;
  delete?: object;
}
type Extra<X extends Facts, K extends keyof Facts> = X[K] extends object ? X[K] : unknown;
type Names<R extends Resource> = NonNullable<R["~types"]>["commands"];

export type CreateCommand<R extends Resource, X extends Facts = Facts> = {
  type: Names<R>["create"];
  input: CreateInput<R>;
} & ResourceKeys<R> &
  Extra<X, "create">;
export type UpdateCommand<R extends Resource, X extends Facts = Facts> = {
  type: Names<R>["update"];
  input: UpdateInput<R>;
} & ResourceKeys<R> &
  Extra<X, "update">;
export type DeleteCommand<R extends Resource, X extends Facts = Facts> = {
  type: Names<R>["delete"];
} & ResourceKeys<R> &
  Extra<X, "delete">;
export type ResourceCommand<R extends Resource, X extends Facts = Facts> =
  | CreateCommand<R, X>
  | UpdateCommand<R, X>
  | DeleteCommand<R, X>;

export type ResourceState<R extends Resource> =
  | { status: "absent" }
  | {
      status: "active" | "deleted";
      fields: ResourceFields<R>;
      parent_id: string | null;
      /** Set once its personal data was erased (`personalData` resources). */
      erased_at?: string;
    };

/** The area's own rules, on top of the kit's (exists, not twice, parent never changes). */
export interface Rules<R extends Resource, X extends Facts> {
  /** Problems of the fields as the command would leave them (`changes`: null on create): a 400. */
  check?: (
    fields: ResourceFields<R>,
    command: CreateCommand<R, X> | UpdateCommand<R, X>,
    changes: Partial<ResourceFields<R>> | null,
  ) => ErrorDetail[];
  /** Throws to refuse a delete (e.g. a 409 while other resources need it). */
  deletable?: (command: DeleteCommand<R, X>, fields: ResourceFields<R>) => void;
  /** Throws to refuse a create, before the kit's 409 on an existing stream (e.g. a catalog's code). */
  creatable?: (command: CreateCommand<R, X>, state: ResourceState<R>) => void;
}

/** The child is not under the parent of the path: 400 on the parent's id (as for any id in a body). */
export const notUnderParent = (resource: Resource, id: string, parentId: string) => {
  const message = `${resource.label} ${id} does not belong to ${resource.parent} ${parentId}`;
  return fieldError(String(resource.parentKey), message, message);
};

type Loose = Record<string, unknown>;

/**
 * The decider of a resource: create (409 if it exists), update (omitted keeps, null removes; the
 * event names the changed fields), delete; 404 when absent or deleted; `rules` on top.
 */
export function resourceDecider<R extends Resource, X extends Facts = Facts>(
  resource: R,
  rules: Rules<R, X> = {},
): Decider<ResourceState<R>, ResourceCommand<R, X>, ResourceEvent<R>> {
  type Fields = ResourceFields<R>;
  const { idKey, parentKey, label, events, commands } = resource;
  const readOnly = new Set<string>(resource.readOnly ?? []);
  const fieldNames = resource.fieldNames.filter((f) => !readOnly.has(f));
  const invalid = `Invalid ${label.toLowerCase()} data`;
  const keysOf = (command: Loose) =>
    ({
      ...(parentKey
        ? { [idKey]: command[idKey], [parentKey]: command[parentKey] }
        : { [idKey]: command[idKey] }),
      ...(resource.kinds ? { kind: command.kind } : {}),
    }) as ResourceKeys<R>;
  const refuseIf = (details: ErrorDetail[]) => {
    if (details.length > 0) throw validationError(invalid, details);
  };
  const active = (state: ResourceState<R>, command: Loose) => {
    const id = String(command[idKey]);
    if (state.status !== "active") throw notFound(label, id);
    if (parentKey && state.parent_id !== command[parentKey])
      throw notUnderParent(resource, id, String(command[parentKey]));
    return state;
  };
  /** A parent id in the body other than the path's. */
  const moved = (input: Loose, command: Loose, message: string): ErrorDetail[] =>
    parentKey && input[parentKey] !== undefined && input[parentKey] !== command[parentKey]
      ? [{ field: parentKey, message }]
      : [];
  const event = (type: string, data: object) => ({ type, data }) as ResourceEvent<R>;

  return {
    initialState: () => ({ status: "absent" }),

    evolve(state, e) {
      const data = e.data as Loose;
      if (e.type === resource.personalData?.erased) return evolveErasure(resource, state, data);
      switch (e.type) {
        case events.created: {
          const fields = Object.fromEntries(resource.fieldNames.map((f) => [f, data[f]])) as Fields;
          return { status: "active", fields, parent_id: parentKey ? String(data[parentKey]) : null };
        }
        case events.updated:
          return state.status === "active"
            ? { ...state, fields: { ...state.fields, ...(data.changes as Partial<Fields>) } }
            : state;
        case events.deleted:
          return state.status === "active" ? { ...state, status: "deleted" } : state;
        default:
          return state;
      }
    },

    decide(command, state) {
      const c = command as unknown as Loose;
      if (c.type === resource.personalData?.erase)
        return decideErasure(resource, state, c as unknown as EraseCommand) as ResourceEvent<R>[];
      switch (command.type) {
        case commands.create: {
          rules.creatable?.(command as CreateCommand<R, X>, state);
          if (state.status !== "absent") throw conflict(`${label} ${c[idKey]} already exists`);
          const input = c.input as Loose;
          const fields = Object.fromEntries(resource.fieldNames.map((f) => [f, input[f] ?? null])) as Fields;
          const parent = parentKey ? `the ${resource.parent} of the path (${c[parentKey]})` : "";
          refuseIf([
            ...moved(input, c, `Must be ${parent}`),
            ...(rules.check?.(fields, command as CreateCommand<R, X>, null) ?? []),
          ]);
          return [event(events.created, { ...keysOf(c), ...fields })];
        }
        case commands.update: {
          const current = active(state, c);
          if (current.erased_at) throw conflict(`${label} ${c[idKey]} was erased (GDPR art. 17)`);
          const input = c.input as Loose;
          const changes = changedFields(current.fields, input as Partial<Fields>, fieldNames);
          const merged = { ...current.fields, ...changes };
          const fixed = (f: string) =>
            f in changedFields(current.fields, input as Partial<Fields>, [f as keyof Fields]);
          refuseIf([
            ...moved(input, c, `A ${resource.name} cannot move to another ${resource.parent}`),
            ...[...readOnly].filter(fixed).map((field) => ({ field, message: "Cannot be changed" })),
            ...(rules.check?.(merged, command as UpdateCommand<R, X>, changes) ?? []),
          ]);
          return [event(events.updated, { ...keysOf(c), changes })];
        }
        case commands.delete: {
          const current = active(state, c);
          rules.deletable?.(command as DeleteCommand<R, X>, current.fields);
          return [event(events.deleted, keysOf(c))];
        }
        default:
          throw new Error(`Unknown command ${command.type}`);
      }
    },
  };
}

/** A verdict of a retention (src/law/verdict.ts, by its shape: the platform imports no law). */
export interface RetentionVerdict {
  rule: string;
  status: "PASS" | "FAIL" | "UNKNOWN" | "NOT_APPLICABLE";
  message: string;
  legal_reference: string;
  details: Record<string, unknown>;
}

/** Erase the personal data of a `personalData` resource (GDPR art. 17): the route judged the retentions. */
export interface EraseCommand {
  type: string;
  reason: string;
  /** The API key or user id erasing. */
  erased_by: string | null;
  now: string;
  retention: RetentionVerdict[];
  [key: string]: unknown;
}

/** The erasure event's data: keys, who, when, why and the retentions checked (the audit). */
export interface ErasedData {
  erased_at: string;
  erased_by: string | null;
  reason: string;
  retention: { rule: string; status: string; legal_reference: string }[];
}

/**
 * Absent: 404; erased already: nothing (a repeat is a no-op); a retention FAILs: 409 naming each;
 * else the erasure event, also for a deleted resource (its events still hold the data).
 */
export function decideErasure<R extends Resource>(
  resource: R,
  state: ResourceState<R>,
  command: EraseCommand,
): { type: string; data: Loose }[] {
  const { idKey, parentKey, label, personalData } = resource;
  const id = String(command[idKey]);
  if (!personalData || state.status === "absent") throw notFound(label, id);
  if (parentKey && state.parent_id !== command[parentKey])
    throw notUnderParent(resource, id, String(command[parentKey]));
  if (state.erased_at) return [];
  const keys = parentKey ? { [idKey]: id, [parentKey]: command[parentKey] } : { [idKey]: id };
  return [{ type: personalData.erased, data: { ...keys, ...erasureRecord(command) } }];
}

/**
 * The record of an erasure (who, when, why, the retentions checked), for every subject's erasure
 * event; a retention that FAILs refuses it: 409 naming each.
 */
export function erasureRecord(
  command: Pick<EraseCommand, "now" | "erased_by" | "reason" | "retention">,
): ErasedData {
  const held = command.retention.filter((v) => v.status === "FAIL");
  // The state forbids it (a retention still applies): a 409, as the §4 table says of a conflict.
  if (held.length > 0)
    throw conflict(
      held.map((v) => v.message).join("; "),
      held.map((v) => ({ field: "retention", message: `${v.rule}: ${v.legal_reference}` })),
    );
  return {
    erased_at: command.now,
    erased_by: command.erased_by,
    reason: command.reason,
    retention: command.retention.map(({ rule, status, legal_reference }) => ({
      rule,
      status,
      legal_reference,
    })),
  };
}

/** Its erased fields null from the erasure on (they read null in the log too, the key being gone). */
export function evolveErasure<R extends Resource>(
  resource: R,
  state: ResourceState<R>,
  data: Loose,
): ResourceState<R> {
  if (state.status === "absent") return state;
  const nulls = Object.fromEntries(resource.erasedFields.map((f) => [f, null]));
  return { ...state, fields: { ...state.fields, ...nulls }, erased_at: String(data.erased_at) };
}
