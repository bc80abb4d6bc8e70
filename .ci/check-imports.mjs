// The import rule (docs/conventions.md, "Imports"): an area's files (src/commands/<area>/,
// src/queries/<area>.ts or src/queries/<area>/, src/projections/<area>.ts or src/projections/<area>/) import src/events/*, src/platform/*, their own
// area and other areas' src/queries/* only; never another area's commands or projections. And
// src/queries/* never imports src/commands/*, not even its own area's. The platform (src/platform/)
// imports only itself, src/law/* and packages; the law only itself and the pure date helpers.
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
// The platform (src/platform/): the mechanics every area runs on. It imports only itself, the law
// and packages, never an area, src/areas.ts or the composition root: what an area brings (its
// routes, projections, jobs, stream categories, personal data, upcasters) is handed in by
// src/service.ts and src/areas.ts. Dynamic imports count too.
const platformFiles = readdirSync(join(root, "src/platform"), { recursive: true })
  .map((f) => `src/platform/${f}`)
  .filter((f) => f.endsWith(".ts"));
for (const file of platformFiles) {
  const text = readFileSync(join(root, file), "utf8");
  const specs = [
    ...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms),
    ...text.matchAll(/\bimport\(\s*"(\.[^"]+)"/g),
  ];
  for (const [, spec] of specs) {
    const target = relative(root, normalize(join(root, dirname(file), spec)));
    if (!target.startsWith("src/platform/") && !target.startsWith("src/law/"))
      breaches.push(
        `${file} imports ${target} (the platform imports only src/platform/*, src/law/* and packages: take what an area brings as a parameter, wired in by src/service.ts or src/areas.ts)`,
      );
  }
}
// No value import cycle among src files: a module of a cycle may run before one it needs has
// run (a const read before its initialisation). `import type` and `export type` are erased and do
// not count; `import { type A }` still loads its module, so it counts; dynamic imports run later.
const srcFiles = readdirSync(join(root, "src"), { recursive: true })
  .map((f) => `src/${f}`)
  .filter((f) => f.endsWith(".ts"));
const valueImports = new Map(
  srcFiles.map((file) => {
    const text = readFileSync(join(root, file), "utf8");
    const targets = [...text.matchAll(/^(?:import|export)(\s+type\b)?[^;]*?\bfrom\s+"(\.[^"]+)"/gms)]
      .filter(([, typeOnly]) => !typeOnly)
      .map(([, , spec]) => relative(root, normalize(join(root, dirname(file), spec))));
    return [file, targets.filter((t) => t !== file && t.endsWith(".ts"))];
  }),
);
// Tarjan's strongly connected components: each of more than one file is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
let next = 0;
const cycles = [];
const visit = (file) => {
  index.set(file, next);
  low.set(file, next++);
  stack.push(file);
  onStack.add(file);
  for (const target of valueImports.get(file) ?? []) {
    if (!valueImports.has(target)) continue;
    if (!index.has(target)) {
      visit(target);
      low.set(file, Math.min(low.get(file), low.get(target)));
    } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
  }
  if (low.get(file) !== index.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1) cycles.push(component.sort());
};
for (const file of srcFiles) if (!index.has(file)) visit(file);
for (const cycle of cycles)
  breaches.push(
    `value import cycle among ${cycle.join(", ")} (move what both need to a third file, or import it with \`import type\`)`,
  );
for (const b of breaches) console.error(`import rule: ${b}`);
console.log(
  `import rule: ${files.length} area files, ${lawFiles.length} law files and ${platformFiles.length} platform files checked, ${cycles.length} value import cycles among ${srcFiles.length} src files, ${breaches.length} breaches`,
);
process.exit(breaches.length ? 1 : 0);
