import Handlebars from "handlebars";
import { templateProblems } from "../src/commands/settings/templateCheck.ts";
const time = (label: string, f: () => unknown) => { const t0 = performance.now(); let r; try { r = f(); } catch (e) { r = (e as Error).message.slice(0, 50); } console.log(label, Math.round(performance.now() - t0), JSON.stringify(r).slice(0, 100)); };
for (const n of [200, 1000, 3000]) time(`sub ${n}`, () => Handlebars.parse("{{eq " + "(eq ".repeat(n) + "1 1" + ")".repeat(n) + " 1}}") && "ok");
time("flat", () => templateProblems("recu", "{{money call.rent_amount}} ".repeat(2400).slice(0, 65536)));
time("flat each", () => templateProblems("recu", "{{#each lessees}}{{first_name}}{{/each}}".repeat(1600).slice(0, 65536)));
time("text", () => templateProblems("recu", "a".repeat(65536)));
time("braces", () => templateProblems("recu", "{{".repeat(32768)));
time("open", () => templateProblems("recu", "{{#".repeat(21845)));
