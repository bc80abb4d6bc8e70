import { ConfigError, loadConfig } from "./platform/config.ts";
import { type Role, startService } from "./platform/startService.ts";

/** Starts the roles in this process and serves until SIGTERM/SIGINT, then drains and stops. */
export async function serve(roles: Role[]): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  let service: Awaited<ReturnType<typeof startService>>;
  try {
    service = await startService(config, { roles });
  } catch (error) {
    console.error(`Cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
  if (service.firstRunKey) {
    console.log(
      `\nFirst run: created tenant "default" and an API key with every permission (shown only now):\n\n  ${service.firstRunKey}\n`,
    );
  }
  if (service.app) {
    await service.app.listen({ host: config.HOST, port: config.PORT });
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app?.log.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await service.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void serve(["api", "projector", "worker"]);
}
