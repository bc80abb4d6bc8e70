import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logFormat, prettyLine } from "../../src/platform/log.ts";
import { removeDataDirectory } from "../../src/platform/startEmbeddedPostgres.ts";
import { freePort } from "../support/freePort.ts";
import { startProcess, until, untilReady, userEnv } from "../support/serviceProcess.ts";
import { createEmptyDatabase } from "../support/testDatabase.ts";

/** What a person sees on a start (docs/operations.md, "Logs"). */
const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === "object";
  } catch {
    return false;
  }
};

describe("log format", () => {
  it("is pretty on a terminal, JSON elsewhere, LOG_FORMAT wins", () => {
    expect(logFormat({}, { isTTY: true })).toBe("pretty");
    expect(logFormat({}, { isTTY: false })).toBe("json");
    expect(logFormat({}, {})).toBe("json");
    expect(logFormat({ LOG_FORMAT: "json" }, { isTTY: true })).toBe("json");
    expect(logFormat({ LOG_FORMAT: "pretty" }, { isTTY: false })).toBe("pretty");
  });

  it("a pretty line: time, level, message, request, fields, error stack", () => {
    const line = prettyLine(
      JSON.stringify({
        level: 50,
        time: Date.UTC(2026, 0, 2, 3, 4, 5),
        pid: 1,
        hostname: "h",
        msg: "request failed",
        req: { method: "POST", url: "/api/leases" },
        res: { statusCode: 500 },
        reqId: "r-1",
        err: { message: "boom", stack: "Error: boom\n    at here" },
      }),
    );
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d ERROR request failed POST \/api\/leases -> 500 reqId=r-1\nError: boom\n {4}at here\n$/,
    );
    expect(line).not.toContain("hostname");
    expect(prettyLine("not json")).toBe("not json");
  });
});

describe("the start, as printed", () => {
  it("LOG_FORMAT=pretty: readable lines, then the banner with the URL, docs, data and first-run key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pms-logs-"));
    const port = await freePort();
    const pms = startProcess("pms serve", [process.execPath, "bin/pms.js", "serve"], {
      env: userEnv({ PMS_DATA_DIR: dir, PORT: String(port), LOG_FORMAT: "pretty" }),
    });
    try {
      await untilReady(`http://127.0.0.1:${port}`, [pms]);
      await until("banner", [pms], async () => (/Ctrl-C stops it/.test(pms.stdout()) ? true : null));
      const lines = pms
        .stdout()
        .split("\n")
        .filter((l) => l.trim() !== "");
      expect(lines.filter(isJson), pms.stdout()).toEqual([]);
      const banner = pms.stdout().slice(pms.stdout().indexOf("pms is running"));
      expect(banner).toContain(`API       http://127.0.0.1:${port}/api`);
      expect(banner).toContain(`API docs  http://127.0.0.1:${port}/api/docs`);
      expect(banner).toContain(`Data      ${dir} (embedded PostgreSQL`);
      expect(banner).toMatch(/First run: created tenant "default"[\s\S]*\n {2}pms_[\w-]{20,}\n/);
      // Routine start-up steps are not at info: the whole start is a few lines, not one per projection.
      expect(pms.stdout()).not.toMatch(/building version|swapped in/);
      expect(lines.length, pms.stdout()).toBeLessThan(20);
      expect(await pms.stop()).toBe(0);
    } finally {
      await pms.stop();
      await removeDataDirectory(dir);
    }
  }, 180_000);

  it("not on a terminal: JSON lines; the projections' first builds at debug; a last 'pms started' record", async () => {
    const database = await createEmptyDatabase();
    const port = await freePort();
    const pms = startProcess("pms serve", [process.execPath, "bin/pms.js", "serve"], {
      env: userEnv({ DATABASE_URL: database.url, PORT: String(port), LOG_LEVEL: "debug" }),
    });
    try {
      await untilReady(`http://127.0.0.1:${port}`, [pms]);
      await until("started record", [pms], async () => (/"pms started"/.test(pms.stdout()) ? true : null));
      const lines = pms
        .stdout()
        .split("\n")
        .filter((l) => l.trim() !== "");
      expect(
        lines.filter((l) => !isJson(l)),
        pms.stdout(),
      ).toEqual([]);
      const records = lines.map(
        (l) => JSON.parse(l) as { level: number; msg: string; url?: string; docs?: string },
      );
      const builds = records.filter((r) => /building version|swapped in/.test(r.msg));
      expect(builds.length).toBeGreaterThan(2);
      expect(builds.every((r) => r.level === 20)).toBe(true);
      const started = records.find((r) => r.msg === "pms started");
      expect(started).toMatchObject({
        level: 30,
        url: `http://127.0.0.1:${port}`,
        docs: `http://127.0.0.1:${port}/api/docs`,
      });
      expect(await pms.stop()).toBe(0);
    } finally {
      await pms.stop();
      await database.drop();
    }
  }, 180_000);
});
