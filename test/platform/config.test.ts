import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/platform/config.ts";

const run = promisify(execFile);

/** Starts `src/main.ts` with only the given configuration; it must stop before opening anything. */
async function start(env: Record<string, string>, viaNpx = false) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(HOST|PORT|DATABASE_URL|EVENTSTORE_URL|PMS_.*|LOG_LEVEL)$/.test(k) && !k.startsWith("npm_"),
    ),
  );
  const [file, args] = viaNpx ? ["npm", ["start", "--silent"]] : [process.execPath, ["src/main.ts"]];
  try {
    const { stdout, stderr } = await run(file, args, { env: { ...clean, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    return { code: e.killed ? "timeout" : e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("invalid configuration stops the start with one clear line", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pms-config-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const cases: [string, Record<string, string>, RegExp][] = [
    ["a PORT that is not a number", { PORT: "abc" }, /PORT must be a port number from 0 to 65535/],
    ["a PORT out of range", { PORT: "70000" }, /PORT must be a port number from 0 to 65535/],
    ["a short admin key", { PMS_ADMIN_API_KEY: "too-short" }, /PMS_ADMIN_API_KEY.*32/],
    ["a DATABASE_URL that is not a URL", { DATABASE_URL: "not a url" }, /DATABASE_URL/],
    ["an unknown LOG_LEVEL", { LOG_LEVEL: "loud" }, /LOG_LEVEL/],
  ];

  it.each(cases)(
    "%s",
    async (_name, env, mentions) => {
      const res = await start({ ...env, PMS_DATA_DIR: join(dataDir, "data") });
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBe("timeout");
      const lines = res.stderr.split("\n").filter((l) => l.trim() !== "" && !/^npm (warn|notice)/.test(l));
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(mentions);
      expect(lines[0]).toMatch(/^Invalid configuration: /);
      expect(res.stderr).not.toMatch(/\n\s+at /);
      expect(res.stdout).toBe("");
    },
    60_000,
  );

  it("through npm start too, and nothing is created on disk", async () => {
    const dir = join(dataDir, "npx");
    const res = await start({ PORT: "-1", PMS_DATA_DIR: dir }, true);
    expect(res.code).not.toBe(0);
    const lines = res.stderr.split("\n").filter((l) => l.trim() !== "" && !/^npm (warn|notice)/.test(l));
    expect(lines).toEqual([expect.stringMatching(/^Invalid configuration: PORT/)]);
    await expect(readdir(dir)).rejects.toThrow();
  }, 60_000);

  it("loadConfig names the first bad variable and accepts a valid environment", () => {
    expect(() => loadConfig({ PORT: "x" })).toThrow(ConfigError);
    expect(() => loadConfig({ PMS_ADMIN_API_KEY: "a".repeat(31) })).toThrow(/PMS_ADMIN_API_KEY/);
    const config = loadConfig({ PORT: "8080", PMS_ADMIN_API_KEY: "a".repeat(32), HOST: "0.0.0.0" });
    expect(config.PORT).toBe(8080);
    expect(config.HOST).toBe("0.0.0.0");
    // Defaults (docs/architecture.md §3).
    const defaults = loadConfig({});
    expect(defaults.HOST).toBe("127.0.0.1");
    expect(defaults.PORT).toBe(3000);
    expect(defaults.PMS_DATA_DIR).toBe("./data");
  });
});
