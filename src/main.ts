import { readlink } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { type Config, ConfigError, loadConfig } from "./platform/config.ts";
import { eventStoreHosts } from "./platform/eventstore/eventstoredb/connectionString.ts";
import { createLogger, logFormat } from "./platform/log.ts";
import { type Role, type Service, startService } from "./service.ts";

/**
 * How long a stop may take before the process gives up and exits 1: in-flight requests drain (a
 * command may wait up to PMS_READ_YOUR_WRITES_TIMEOUT_MS for its read model), the projector
 * finishes its batch, pg-boss stops, then the embedded PostgreSQL (docs/operations.md).
 */
export const STOP_BOUND_MS = 25_000;

/**
 * Starts the roles in this process and serves until SIGTERM/SIGINT; then stops taking requests,
 * drains those in flight, stops the projectors, jobs and storage, and exits 0.
 */
export async function serve(roles: Role[], options: { sealPersonalData?: boolean } = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const starting = startService(config, { roles, ...options });
  // Handlers first: a signal during the start (migrations, embedded PostgreSQL) also stops cleanly.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: stopping (at most ${STOP_BOUND_MS / 1000} s)`);
    setTimeout(() => {
      console.error(`not stopped after ${STOP_BOUND_MS / 1000} s: exiting`);
      process.exit(1);
    }, STOP_BOUND_MS).unref();
    const service = await starting.catch(() => null);
    await service?.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  let service: Service;
  try {
    service = await starting;
  } catch (error) {
    console.error(`Cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  if (stopping) return;
  if (service.app) {
    try {
      await service.app.listen({ host: config.HOST, port: config.PORT });
    } catch (error) {
      console.error(`Cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`);
      await service.close();
      process.exit(1);
    }
  }
  await announce(config, roles, service);
}

/**
 * The end of the start: on a terminal a short banner (URL, docs, where the data lives, the
 * first-run key); in JSON one log record, and the first-run key as plain text (shown only now).
 */
async function announce(config: Config, roles: Role[], service: Service): Promise<void> {
  const address = service.app?.server.address() as AddressInfo | null | undefined;
  const host = !address || ["0.0.0.0", "::"].includes(address.address) ? "localhost" : address.address;
  const url = address ? `http://${host.includes(":") ? `[${host}]` : host}:${address.port}` : null;
  const data = await whereDataLives(config);
  const key = service.firstRunKey;
  if (logFormat(config) === "json") {
    if (config.LOG_LEVEL !== "silent") {
      createLogger(config).info({ roles, url, docs: url && `${url}/api/docs`, data }, "pms started");
    }
    if (key) {
      console.log(
        `\nFirst run: created tenant "default" and an API key with every permission (shown only now):\n\n  ${key}\n`,
      );
    }
    return;
  }
  const lines = [
    "",
    `  pms is running (${roles.length === 3 ? "all roles" : roles.join(", ")})`,
    "",
    ...(url ? [`  API       ${url}/api`, `  API docs  ${url}/api/docs`] : []),
    `  Data      ${data}`,
    ...(key
      ? [
          "",
          '  First run: created tenant "default" and an API key with every permission (shown only now):',
          "",
          `  ${key}`,
        ]
      : []),
    "",
    "  Ctrl-C stops it.",
    "",
  ];
  console.log(lines.join("\n"));
}

/** Embedded: the data directory (and, as root, where its cluster was put); else the servers. */
async function whereDataLives(config: Config): Promise<string> {
  if (!config.DATABASE_URL) {
    const dir = resolve(config.PMS_DATA_DIR);
    const cluster = await readlink(join(dir, "postgres")).catch(() => null);
    return `${dir} (embedded PostgreSQL${cluster ? `, cluster in ${cluster}` : ""})`;
  }
  const server = (u: string) => {
    const parsed = new URL(u);
    return `${parsed.host || parsed.searchParams.get("host")}${parsed.pathname}`;
  };
  const log = config.EVENTSTORE_URL
    ? `, event log on EventStoreDB ${eventStoreHosts(config.EVENTSTORE_URL)}`
    : "";
  return `PostgreSQL ${server(config.DATABASE_URL)}${log}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void serve(["api", "projector", "worker"]);
}
