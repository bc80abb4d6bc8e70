import { type Config, ConfigError, loadConfig } from "./platform/config.ts";
import { type Role, type Service, startService } from "./platform/startService.ts";

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
export async function serve(roles: Role[]): Promise<void> {
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
  const starting = startService(config, { roles });
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
  if (service.firstRunKey) {
    console.log(
      `\nFirst run: created tenant "default" and an API key with every permission (shown only now):\n\n  ${service.firstRunKey}\n`,
    );
  }
  if (service.app) {
    try {
      await service.app.listen({ host: config.HOST, port: config.PORT });
    } catch (error) {
      console.error(`Cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`);
      await service.close();
      process.exit(1);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void serve(["api", "projector", "worker"]);
}
