import Handlebars from "handlebars";
for (const n of [500, 1000, 2000, 3000, 4000]) {
  const src = "{{#if call}}".repeat(n) + "x" + "{{/if}}".repeat(n);
  const t0 = performance.now();
  try { Handlebars.parse(src); console.log(n, "ok", Math.round(performance.now() - t0)); } catch (e) { console.log(n, "err", (e as Error).message.slice(0, 60), Math.round(performance.now() - t0)); }
}
