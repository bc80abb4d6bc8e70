import { templateProblems } from "../src/commands/settings/templateCheck.ts";
for (const n of [1000, 3000, 7000]) {
  const src = "{{#if call}}".repeat(n) + "x" + "{{/if}}".repeat(n);
  try { console.log(n, src.length, templateProblems("recu", src.slice(0, 65536))); } catch (e) { console.log(n, "THROWS", (e as Error).message); }
  const src2 = "{{#each lessees}}".repeat(n) + "x" + "{{/each}}".repeat(n);
  try { console.log(n, templateProblems("recu", src2.slice(0,65536)).map(s=>s.slice(0,120))); } catch (e) { console.log(n, "THROWS", (e as Error).message); }
}
