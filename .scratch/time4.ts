import { templateProblems } from "../src/commands/settings/templateCheck.ts";
for (const n of [100, 400, 400]) {
const src = "{{money call.rent_amount}} ".repeat(n);
const t0 = performance.now(); templateProblems("recu", src); console.log(n, src.length, Math.round(performance.now() - t0));
}
const src = "{{#each lessees}}{{first_name}}{{/each}}".repeat(200);
const t0 = performance.now(); templateProblems("recu", src); console.log("each", src.length, Math.round(performance.now() - t0));
