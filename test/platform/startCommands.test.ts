import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { nodeFlagsOf, SERVICE_NODE_FLAGS } from "../../bench/lib/children.ts";

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), "utf8");

/**
 * `["node", "--a", "bin/pms.js", …]` (an exec form in a Dockerfile, or in compose, where the
 * formatter may spread it over lines with a trailing comma) -> "node --a bin/pms.js …".
 */
const execForms = (text: string) =>
  [...text.matchAll(/\[\s*("node"[^\]]*?),?\s*\]/g)].map((m) =>
    (JSON.parse(`[${m[1]}]`) as string[]).join(" "),
  );

// docs/operations.md, "Memory": every way the service is started gives node the same flags.
describe("the service's start commands", () => {
  it("npm start caps the heap and the young generation, and the bench runs the service with npm start's flags", async () => {
    const scripts = JSON.parse(await read("package.json")).scripts as Record<string, string>;
    expect(nodeFlagsOf(scripts.start)).toEqual(["--max-old-space-size=1024", "--max-semi-space-size=16"]);
    expect(SERVICE_NODE_FLAGS).toEqual(nodeFlagsOf(scripts.start));
    // The CLI (a rebuild, a migration) runs with the same flags through `npm run pms`.
    expect(nodeFlagsOf(scripts.pms)).toEqual(nodeFlagsOf(scripts.start));
  });

  it("the Dockerfile and every compose role start node with the same flags", async () => {
    const start = nodeFlagsOf(JSON.parse(await read("package.json")).scripts.start);
    const commands = [...execForms(await read("Dockerfile")), ...execForms(await read("docker-compose.yml"))];
    expect(commands.length).toBe(4);
    for (const command of commands) expect(nodeFlagsOf(command), command).toEqual(start);
  });

  it("reads the flags between node and bin/pms.js, and none where there are none", () => {
    expect(nodeFlagsOf("exec node --a=1  --b bin/pms.js serve")).toEqual(["--a=1", "--b"]);
    expect(nodeFlagsOf("exec node bin/pms.js serve")).toEqual([]);
  });
});
