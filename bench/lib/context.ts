import { randomBytes } from "node:crypto";
import { type Child, startChild } from "./children.ts";
import type { Databases } from "./databases.ts";

export interface Figure {
  step: string;
  metric: string;
  value: number | string;
  unit: string;
  /** Human-readable target, e.g. "≥ 0.5× baseline"; empty for information-only figures. */
  target: string;
  pass: boolean | null;
  note?: string;
}

export interface Tenant {
  id: string;
  key: string;
}

export interface Service {
  child: Child;
  adminKey: string;
  /** The local payment provider's webhook secret (PMS_LOCAL_PAYMENT_SECRET): the bench signs its deliveries. */
  localPaymentSecret: string;
  /** The tenant the create run writes to. */
  tenant: Tenant;
  newTenant(name: string): Promise<Tenant>;
}

export interface Context {
  seconds: number;
  connections: number;
  big: boolean;
  runId: string;
  dbs: Databases;
  /** The database the service and the baseline share (created on first use). */
  mainDatabase(): Promise<string>;
  service(): Promise<Service>;
  /** The service if a step started it, without starting it. */
  serviceIfStarted(): Promise<Service> | null;
  baseline(): Promise<Child>;
  /** Raw numbers of each step, written to the JSON report. */
  raw: Record<string, unknown>;
  figures: Figure[];
  /** Values a later step may reuse (e.g. the seeded list tenant). */
  shared: Map<string, unknown>;
}

export function createContext(options: {
  seconds: number;
  connections: number;
  big: boolean;
  dbs: Databases;
}): Context {
  const runId = randomBytes(4).toString("hex");
  let main: Promise<string> | null = null;
  let service: Promise<Service> | null = null;
  let baseline: Promise<Child> | null = null;
  const ctx: Context = {
    ...options,
    runId,
    raw: {},
    figures: [],
    shared: new Map(),
    mainDatabase() {
      main ??= options.dbs.create("");
      return main;
    },
    service() {
      service ??= startService(ctx);
      return service;
    },
    serviceIfStarted: () => service,
    baseline() {
      baseline ??= ctx
        .mainDatabase()
        .then((url) => startChild("baseline", "bench/baseline.ts", { DATABASE_URL: url, LOG_LEVEL: "warn" }));
      return baseline;
    },
  };
  return ctx;
}

async function startService(ctx: Context): Promise<Service> {
  return startServiceOn(await ctx.mainDatabase(), ctx.runId);
}

/**
 * The service on the database of `url`, with an admin key and a tenant; `script`: another entry
 * than src/main.ts (bench/plainService.ts), `name` its name in the report.
 */
export async function startServiceOn(
  url: string,
  runId: string,
  { name = "service", script = "src/main.ts" } = {},
): Promise<Service> {
  const adminKey = `bench_admin_${randomBytes(24).toString("hex")}`;
  const localPaymentSecret = randomBytes(32).toString("base64url");
  const child = await startChild(name, script, {
    DATABASE_URL: url,
    LOG_LEVEL: "warn",
    PMS_ADMIN_API_KEY: adminKey,
    PMS_RATE_LIMIT_PER_MINUTE: "0",
    PMS_LOCAL_PAYMENT_SECRET: localPaymentSecret,
  });
  return { child, adminKey, localPaymentSecret, ...(await tenantsOf(child, adminKey, runId)) };
}

/** Tenants with a lessee/property key on a started service, through its admin API. */
export async function tenantsOf(
  child: Child,
  adminKey: string,
  runId: string,
): Promise<Pick<Service, "tenant" | "newTenant">> {
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(child.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const newTenant = async (name: string): Promise<Tenant> => {
    const tenant = await admin("/api/admin/tenants", { name: `${name}-${runId}` });
    const key = await admin(`/api/admin/tenants/${tenant.id}/api-keys`, {
      name: "bench",
      permissions: [
        "LesseeRead",
        "LesseeWrite",
        "LesseeDelete",
        "PropertiesRead",
        "PropertiesWrite",
        "LeasesRead",
        "LeasesWrite",
        "FinanceRead",
        "FinanceWrite",
      ],
    });
    return { id: tenant.id, key: key.key };
  };
  return { tenant: await newTenant("bench"), newTenant };
}

/** Pass/fail of a figure against a lower or upper bound. */
export const atLeast = (value: number, bound: number) => Number.isFinite(value) && value >= bound;
export const atMost = (value: number, bound: number) => Number.isFinite(value) && value <= bound;
