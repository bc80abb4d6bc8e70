import { createHash } from "node:crypto";
import { z } from "zod";
import type { Permission } from "../http/auth.ts";
import { rowShape, timestamp } from "../http/responses.ts";
import { notNull, text, uuid } from "../http/schemas.ts";
import { tenantPolicy } from "../projections/projection.ts";

/**
 * The resource kit (docs/architecture.md, "How to add an area"): one declaration of an area's
 * resource gives its request and response schemas, its events, its read-model table, projection
 * and standard routes. The declaration lives in `src/events/<area>.ts`, which every part of the
 * area may import; rules beyond it are a hand-written check on top (`resourceDecider`).
 */

type Shape = Record<string, z.ZodType>;
export interface EventNames {
  created: string;
  updated: string;
  deleted: string;
}
export interface CommandNames {
  create: string;
  update: string;
  delete: string;
}
export type Route = "list" | "get" | "create" | "update" | "delete" | "history";

/** Whether the resource mounts the standard route `route` (all unless `routes` names some). */
export const mounts = (resource: { routes?: Route[] }, route: Route) =>
  !resource.routes || resource.routes.includes(route);

/** A list filter: the schema of its query field, the SQL condition on its value `$n`. */
export interface Filter {
  schema: z.ZodType;
  where: (param: string) => string;
  value?: (v: string) => unknown;
}

export interface Declaration<
  N extends string,
  S extends Shape,
  P extends string | undefined,
  E extends EventNames,
  C extends CommandNames,
> {
  /** Singular, lower case: id `<name>_id` in events and paths. */
  name: N;
  /**
   * The stream of a resource, `<category>-<id>`, written out (its category is in
   * STREAM_CATEGORIES, src/events/streams.ts: EventStoreDB reads no other).
   */
  stream: (id: string) => string;
  /** "Owner": `Owner <id> not found`, the response schema's name. */
  label: string;
  /** Read-model table (also the projection's name). */
  table: string;
  /** Collection path; its `:params` are UUIDs (a parent's path first). */
  path: string;
  tag: string;
  access: { read: Permission; write: Permission; delete: Permission };
  /** The create body's fields: required ones required, optional ones `.nullish()` (null = unset). */
  fields: S;
  /** Fields set on create and never changed: an update may repeat the value (PUT back), not change it. */
  readOnly?: (keyof S & string)[];
  /** Whose child it is ("estate"): `<parent>_id` from the path, in every event and row, never changes. */
  parent?: P;
  /** Event type names: the log holds them, so they never change. */
  events: E;
  commands: C;
  /** Query fields of the list beyond `page` and `limit`. */
  filters?: Record<string, Filter>;
  /** SQL types where the one derived from the zod type is not wanted. */
  sqlTypes?: Partial<Record<keyof S, string>>;
  /** OpenAPI summaries replacing the derived ones. */
  summaries?: Partial<Record<Route, string>>;
  /** 400 message of a body failing its schema (default: the platform's). */
  invalidBodyMessage?: string;
  /** GET <path>/:id/history, the stream's events (audit). */
  history?: boolean;
  /**
   * Kinds sharing the stream category and the table, each at `<path>/<segment>` (kind -> segment;
   * catalog.ts): `kind` is a key of every command, event and row after the parent's, in the body.
   */
  kinds?: Record<string, string>;
  /** A static table of global rows (tenant_id NULL) listed before the tenant's; the body's `scope` says which. */
  catalog?: string;
  /** Columns unique per tenant (types: kind and code). */
  unique?: string[];
  /** The timestamps the body shows (default both; the table keeps both). */
  timestamps?: ("created_at" | "updated_at")[];
  /** Fields the read model keeps that no answer shows (media: `blob_key`, where the bytes are). */
  hidden?: (keyof S & string)[];
  /** The standard routes mounted (default all): others are the area's own (media's upload). */
  routes?: Route[];
  /**
   * Personal data (docs/personal-data.md): the fields erased with the subject's key (those of the
   * list the resource has), the erasure's event and command names. Adds `erased_at` to the read
   * model and the body, the erase and export routes (personalRoutes.ts).
   */
  personalData?: PersonalData;
}

/** A resource's personal data: see `Declaration.personalData`. */
export interface PersonalData {
  fields: readonly string[];
  /** Event type name of the erasure (the log holds it: never changes). */
  erased: string;
  /** Command type name of the erasure. */
  erase: string;
}

/** The fields as events and state carry them: every field present, unset ones null. */
export type FieldsOf<S extends Shape> = { -readonly [K in keyof S]-?: Exclude<z.output<S[K]>, undefined> };
// Any resource (N only `string`): no key pattern, so a nullable field ending in `_id` still fits.
type KeysOf<N extends string, P extends string | undefined> = string extends N
  ? object
  : { [K in `${N}_id`]: string } & (P extends string ? { [K in `${P}_id`]: string } : unknown);
type EventOf<E extends EventNames, K, F> =
  | { type: E["created"]; data: K & F }
  /** Only the fields that changed (null = removed); may be empty: updated_at still moves. */
  | { type: E["updated"]; data: K & { changes: Partial<F> } }
  | { type: E["deleted"]; data: K };
type ParentInput<P> = P extends string ? { [K in `${P}_id`]?: string } : unknown;

export interface Resource<
  N extends string = string,
  S extends Shape = Shape,
  P extends string | undefined = string | undefined,
  E extends EventNames = EventNames,
  C extends CommandNames = CommandNames,
> extends Declaration<N, S, P, E, C> {
  idKey: `${N}_id`;
  parentKey: P extends string ? `${P}_id` : undefined;
  fieldNames: (keyof S & string)[];
  eventTypes: E[keyof EventNames][];
  createSchema: z.ZodObject<S>;
  updateSchema: z.ZodObject;
  /** The resource as the API shows it: id, the fields (null when unset), timestamps. */
  body: z.ZodObject;
  /** Every column of the read model, tenant_id and id first. */
  columns: string[];
  /** The columns a response shows, in order. */
  responseColumns: string[];
  /** Response columns the read model keeps as numeric (a list writes them as float8, jsonPage.ts). */
  numericColumns: string[];
  ddl: string;
  /** Derived from the table and the events: a change rebuilds the read model. */
  version: number;
  /** The personal fields erased with the subject's key (empty without `personalData`). */
  erasedFields: (keyof S & string)[];
  /** Types only (never set): what the helpers below read. */
  "~types"?: {
    fields: FieldsOf<S>;
    keys: KeysOf<N, P>;
    event: EventOf<E, KeysOf<N, P>, FieldsOf<S>>;
    create: z.output<z.ZodObject<S>> & ParentInput<P>;
    update: { [K in keyof S]?: z.output<S[K]> | null } & ParentInput<P>;
    commands: C;
  };
}

type Types<R extends Resource> = NonNullable<R["~types"]>;
export type ResourceFields<R extends Resource> = Types<R>["fields"];
export type ResourceKeys<R extends Resource> = Types<R>["keys"];
export type ResourceEvent<R extends Resource> = Types<R>["event"];
export type CreateInput<R extends Resource> = Types<R>["create"];
export type UpdateInput<R extends Resource> = Types<R>["update"];

const unwrap = (schema: z.ZodType): { inner: z.ZodType; optional: boolean } => {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, optional };
};

/** The SQL type of a field from its zod type: uuid, integer, numeric, boolean, jsonb or text. */
function sqlTypeOf(schema: z.ZodType): string {
  const { inner } = unwrap(schema);
  const format = (inner as { format?: string | null }).format;
  switch (inner.def.type) {
    case "string":
      return format === "guid" || format === "uuid" ? "uuid" : "text";
    case "number":
      return format === "safeint" ? "integer" : "numeric";
    case "boolean":
      return "boolean";
    case "record":
    case "object":
    case "array":
      return "jsonb";
    default:
      return "text";
  }
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

export function defineResource<
  const N extends string,
  S extends Shape,
  const E extends EventNames,
  const C extends CommandNames,
  const P extends string | undefined = undefined,
>(declaration: Declaration<N, S, P, E, C>): Resource<N, S, P, E, C> {
  const { name, parent, table, fields } = declaration;
  const parentKey = (parent ? `${parent}_id` : undefined) as Resource<N, S, P>["parentKey"];
  const fieldNames = Object.keys(fields) as (keyof S & string)[];
  const parentInput = parentKey
    ? // Accepted when it is the path's (a GET can be PUT back); a child never moves (the decider says so).
      { [parentKey]: uuid().optional() }
    : {};
  // Named once for the API description (src/platform/http/openapi.ts): New<Label>, <Label>Changes, <Label>.
  const { label } = declaration;
  const createSchema = z
    .strictObject({ ...fields, ...parentInput })
    .meta({ id: `New${label}` }) as unknown as z.ZodObject<S>;
  const updateFields = Object.fromEntries(
    fieldNames.map((f) => {
      const schema = fields[f] as z.ZodType;
      return [f, unwrap(schema).optional ? schema : notNull(schema, f).optional()];
    }),
  );
  const updateSchema = z.strictObject({ ...updateFields, ...parentInput }).meta({ id: `${label}Changes` });
  const kindKeys = declaration.kinds ? ["kind"] : [];
  const kindShape = declaration.kinds
    ? { kind: z.enum(Object.keys(declaration.kinds) as [string, ...string[]]) }
    : {};
  const shownTimestamps = declaration.timestamps ?? ["created_at", "updated_at"];
  const hidden = new Set<string>(declaration.hidden ?? []);
  const shownFields = fieldNames.filter((f) => !hidden.has(f));
  const shownShape = Object.fromEntries(Object.entries(createSchema.shape).filter(([f]) => !hidden.has(f)));
  const erasedFields = erasedFieldsOf(declaration.personalData, fieldNames);
  const body = z
    .strictObject({
      id: uuid(),
      ...kindShape,
      ...rowShape(shownShape),
      ...(declaration.catalog ? { scope: z.enum(["global", "tenant"]) } : {}),
      ...Object.fromEntries(shownTimestamps.map((t) => [t, timestamp])),
      ...erasureShape(createSchema.shape, erasedFields),
    })
    .meta({ id: label });
  const keys = parentKey ? [parentKey] : [];
  const erasure = declaration.personalData ? ["erased_at"] : [];
  const columns = [
    "tenant_id",
    "id",
    ...keys,
    ...kindKeys,
    ...fieldNames,
    "revision",
    "created_at",
    "updated_at",
    ...erasure,
  ];
  const sqlTypes = declaration.sqlTypes as Record<string, string> | undefined;
  const sqlTypeOfField = (f: keyof S & string) => sqlTypes?.[f] ?? sqlTypeOf(fields[f] as z.ZodType);
  const columnDdl = fieldNames.map((f) => {
    const schema = fields[f] as z.ZodType;
    return `  ${f} ${sqlTypeOfField(f)}${unwrap(schema).optional || erasedFields.includes(f) ? "" : " NOT NULL"},`;
  });
  // ISO 8601 as the erasure event has it (text: read as is by GET one and the list).
  if (declaration.personalData) columnDdl.push("  erased_at text,");
  const index = parentKey
    ? `CREATE INDEX ${table}_${parent} ON ${table} (tenant_id, ${parentKey}, created_at, id);`
    : `CREATE INDEX ${table}_tenant_order ON ${table} (tenant_id, created_at, id);`;
  const unique = declaration.unique
    ? `\nCREATE UNIQUE INDEX ${table}_unique ON ${table} (tenant_id, ${declaration.unique.join(", ")});`
    : "";
  const ddl = `
CREATE TABLE ${table} (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
${keys.map((k) => `  ${k} uuid NOT NULL,\n`).join("")}${kindKeys.map((k) => `  ${k} text NOT NULL,\n`).join("")}${columnDdl.join("\n")}
  revision bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
${index}${unique}
${tenantPolicy(table)}
CREATE TABLE ${table}_counts (
  tenant_id uuid NOT NULL,
  id uuid PRIMARY KEY,
  parent_id uuid,
  n bigint NOT NULL
);
CREATE INDEX ${table}_counts_parent ON ${table}_counts (tenant_id, parent_id);
${tenantPolicy(`${table}_counts`)}`;
  const eventTypes = [declaration.events.created, declaration.events.updated, declaration.events.deleted];
  if (declaration.personalData) eventTypes.push(declaration.personalData.erased as E[keyof EventNames]);
  const hash = createHash("sha256")
    .update(`kit 1\n${ddl}\n${eventTypes.join(",")}`)
    .digest("hex");
  const a = article(label.toLowerCase());
  return {
    ...declaration,
    summaries: {
      list: `List ${table}`,
      get: `Get ${a}`,
      create: `Create ${a}`,
      update: `Update ${a}: omitted fields keep their value, null removes it`,
      delete: `Delete ${a}`,
      history: `The ${name}'s events, oldest first (audit; paginated)`,
      ...declaration.summaries,
    },
    idKey: `${name}_id`,
    parentKey,
    fieldNames,
    eventTypes,
    createSchema,
    updateSchema,
    body,
    columns,
    responseColumns: [
      "id",
      ...keys,
      ...kindKeys,
      ...shownFields,
      ...(declaration.catalog ? ["scope"] : []),
      ...shownTimestamps,
      ...erasure,
    ],
    numericColumns: fieldNames.filter((f) => sqlTypeOfField(f).startsWith("numeric")),
    ddl,
    version: Number.parseInt(hash.slice(0, 7), 16),
    erasedFields,
  };
}

const erasedFieldsOf = <F extends string>(personal: PersonalData | undefined, fieldNames: F[]): F[] =>
  personal ? fieldNames.filter((f) => personal.fields.includes(f)) : [];

/** The body's changes for a resource with personal data: its erased fields may read null, `erased_at`. */
function erasureShape(shape: Shape, erasedFields: readonly string[]): Shape {
  if (erasedFields.length === 0) return {};
  const out: Shape = {};
  for (const f of erasedFields) if (!unwrap(shape[f]).optional) out[f] = shape[f].nullable();
  out.erased_at = timestamp
    .nullable()
    .describe("When the personal data was erased (GDPR art. 17): its personal fields are then null");
  return out;
}

/**
 * The SQL conditions of the filters `query` sets (a value that is not empty), appended to
 * `where`, their values to `params` (each condition's `$n` the next parameter).
 */
export function applyFilters(
  filters: Record<string, Filter>,
  query: Record<string, unknown>,
  where: string[],
  params: unknown[],
): void {
  for (const [name, filter] of Object.entries(filters)) {
    const value = query[name];
    if (!value) continue;
    params.push(filter.value ? filter.value(value as string) : value);
    where.push(filter.where(`$${params.length}`));
  }
}

/** `q`: the text contained (case-insensitive, literally: no wildcards) in any of the SQL expressions. */
export const contains = (expressions: string[], description: string): Filter => ({
  schema: text(255).optional().describe(description),
  where: (p) => `(${expressions.map((e) => `strpos(lower(coalesce(${e}, '')), ${p}) > 0`).join(" OR ")})`,
  value: (v) => v.toLowerCase(),
});

/** An exact value of a column. */
export const equals = (column: string, schema: z.ZodType, description?: string): Filter => ({
  schema: (description ? schema.describe(description) : schema).optional(),
  where: (p) => `${column} = ${p}`,
});

/** An exact text of a column, case-insensitive. */
export const equalsIgnoringCase = (column: string, max: number, description: string): Filter => ({
  schema: text(max).optional().describe(description),
  where: (p) => `lower(${column}) = ${p}`,
  value: (v) => v.toLowerCase(),
});

/** People and companies (owners, contacts, lessees): `q` in the names, legal name or email; exact category; exact email. */
export const contactSearch = (categories: z.ZodType): Record<string, Filter> => ({
  q: contains(
    ["concat_ws(' ', first_name, last_name)", "legal_name", "email"],
    "Contained in the names, legal name or email",
  ),
  category: equals("category", categories),
  email: equalsIgnoringCase("email", 254, "Exact email, case-insensitive"),
});
