// The import rule (docs/conventions.md, "Imports"): an area's files (src/commands/<area>/,
// src/queries/<area>.ts or src/queries/<area>/, src/projections/<area>.ts or src/projections/<area>/) import src/events/*, src/platform/*, their own
// area and other areas' src/queries/* only; never another area's commands or projections. And
// src/queries/* never imports src/commands/*, not even its own area's.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const root = join(dirname(new URL(import.meta.url).pathname), "..");
// A projection too big for one file has its parts in src/projections/<area>/ (the leases'); an
// area of pages keeps its views and static files in src/queries/<area>/ (the portal's), and an
// area shaped as folders (the bank's, the books') has src/queries/<area>/ too.
const areaOf = (file) =>
  /^src\/(?:commands\/([^/]+)\/|(?:queries|projections)\/([^/]+)\.ts$|(?:queries|projections)\/([^/]+)\/)/
    .exec(file)
    ?.slice(1)
    .find(Boolean);
const kindOf = (file) => /^src\/(commands|queries|projections)\//.exec(file)?.[1];
const files = readdirSync(join(root, "src"), { recursive: true })
  .map((f) => `src/${f}`)
  .filter((f) => f.endsWith(".ts") && areaOf(f));
const breaches = [];
for (const file of files) {
  const text = readFileSync(join(root, file), "utf8");
  for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)) {
    const target = relative(root, normalize(join(root, dirname(file), spec)));
    const [area, kind] = [areaOf(target), kindOf(target)];
    if (area && area !== areaOf(file) && kind !== "queries")
      breaches.push(`${file} imports ${target} (use src/platform/* or that area's src/queries/*)`);
    // The read side never reaches into the write side, even of its own area: what both need (a
    // fold, a schema) lives in src/events/<area>.ts or src/queries/, where commands import it.
    else if (kindOf(file) === "queries" && kind === "commands")
      breaches.push(
        `${file} imports ${target} (src/queries never imports src/commands: move the shared part to src/events/* or src/queries/*)`,
      );
  }
}
// The law (src/law/, docs/decisions.md): any area imports it; it imports only itself and the pure
// date helpers of src/platform/formatDates.ts, so it stays free of HTTP, I/O and the areas.
const LAW_MAY_IMPORT = ["src/platform/formatDates.ts"];
const lawFiles = readdirSync(join(root, "src/law"), { recursive: true })
  .map((f) => `src/law/${f}`)
  .filter((f) => f.endsWith(".ts"));
for (const file of lawFiles) {
  const text = readFileSync(join(root, file), "utf8");
  for (const [, spec] of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)) {
    const target = spec.startsWith(".") ? relative(root, normalize(join(root, dirname(file), spec))) : spec;
    if (!target.startsWith("src/law/") && !LAW_MAY_IMPORT.includes(target))
      breaches.push(
        `${file} imports ${target} (the law imports only itself and ${LAW_MAY_IMPORT.join(", ")})`,
      );
  }
}
for (const b of breaches) console.error(`import rule: ${b}`);
console.log(
  `import rule: ${files.length} area files and ${lawFiles.length} law files checked, ${breaches.length} breaches`,
);
process.exit(breaches.length ? 1 : 0);
