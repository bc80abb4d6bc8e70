import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { removeDataDirectory } from "../src/platform/startEmbeddedPostgres.ts";
import { freePort } from "./support/freePort.ts";
import { startProcess, untilReady, userEnv } from "./support/serviceProcess.ts";

/**
 * The README's Walkthrough, run as written: its shell blocks, in order, in one bash, against the
 * service started as its first block says. Each `# → …` line under a command is a line that command
 * must print. So the README cannot drift from the service.
 */
const run = promisify(execFile);

interface Chunk {
  code: string;
  expected: string[];
}

/** The shell blocks of the Walkthrough section, cut after each command whose output is shown. */
function walkthroughChunks(readme: string): { start: string; chunks: Chunk[] } {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Walkthrough\n")) ?? "";
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const start = blocks.find((b) => b.includes("npm start")) ?? "";
  const chunks: Chunk[] = [];
  for (const block of blocks.filter((b) => b !== start)) {
    let code: string[] = [];
    for (const line of block.split("\n")) {
      const shown = /^# → (.*)$/.exec(line);
      if (!shown) {
        code.push(line);
      } else if (code.length === 0 && chunks.length > 0) {
        chunks[chunks.length - 1].expected.push(shown[1]);
      } else {
        chunks.push({ code: code.join("\n"), expected: [shown[1]] });
        code = [];
      }
    }
    if (code.join("").trim()) chunks.push({ code: code.join("\n"), expected: [] });
  }
  return { start, chunks };
}

describe("README walkthrough", () => {
  it("splits blocks at the shown outputs", () => {
    const readme =
      "## Walkthrough\n```sh\nnpm start\n```\n```sh\nA=1\necho $A\n# → 1\n# → 2\necho x\n```\n## Next\n```sh\nno\n```\n";
    expect(walkthroughChunks(readme)).toEqual({
      start: "npm start\n",
      chunks: [
        { code: "A=1\necho $A", expected: ["1", "2"] },
        { code: "echo x\n", expected: [] },
      ],
    });
  });

  it("runs as written and prints what it shows", async () => {
    const { start, chunks } = walkthroughChunks(
      await readFile(new URL("../README.md", import.meta.url), "utf8"),
    );
    const admin = /PMS_ADMIN_API_KEY=(\S+) npm start/.exec(start)?.[1];
    expect(admin).toBeDefined();
    expect(chunks.filter((c) => c.expected.length).length).toBeGreaterThan(15);
    const dir = await mkdtemp(join(tmpdir(), "pms-readme-"));
    const port = await freePort();
    const service = startProcess("pms serve", [process.execPath, "bin/pms.js", "serve"], {
      env: userEnv({ PMS_ADMIN_API_KEY: admin!, PMS_DATA_DIR: join(dir, "data"), PORT: String(port) }),
    });
    try {
      await untilReady(`http://127.0.0.1:${port}`, [service]);
      // The README's service listens on 3000; this one on a free port.
      const script = chunks
        .map(
          (c, n) => `${c.code.replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`)}\nprintf '\\n@@ ${n} @@\\n'`,
        )
        .join("\n");
      const { stdout, stderr } = await run("bash", ["-c", script], {
        cwd: dir,
        env: userEnv(),
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(stderr).toBe("");
      const outputs = stdout.split(/\n@@ \d+ @@\n/);
      expect(outputs).toHaveLength(chunks.length + 1);
      for (const [n, chunk] of chunks.entries()) {
        const lines = outputs[n].split("\n").map((l) => l.trim());
        for (const shown of chunk.expected) {
          // At a line's end: the JSON a command before it printed has no newline of its own.
          const printed = lines.some((l) => l.endsWith(shown));
          expect(printed, `${chunk.code}\n# → ${shown}\nbut it printed:\n${outputs[n]}`).toBe(true);
        }
      }
    } finally {
      await service.stop();
      await removeDataDirectory(join(dir, "data"));
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
