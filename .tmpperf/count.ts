import pg from "pg";
import { createTestApp } from "../test/support/testApp.ts";

const log: string[] = [];
let on = false;
const orig = pg.Client.prototype.query;
(pg.Client.prototype as any).query = function (this: unknown, ...args: any[]) {
  if (on) {
    const a = args[0];
    const text = typeof a === "string" ? a : a?.text;
    log.push(`${String(text).replace(/\s+/g, " ").slice(0, 110)}`);
  }
  return (orig as any).apply(this, args);
};
const t = await createTestApp("postgres" as any);
for (let i = 0; i < 3; i++)
  await t.request("POST", "/api/lessees", {
    body: { category: "individual", first_name: "A", last_name: "B", email: `x${i}@ex.fr` },
  });
await new Promise((r) => setTimeout(r, 300));
on = true;
const res = await t.request("POST", "/api/lessees", {
  body: { category: "individual", first_name: "A", last_name: "B", email: `y@ex.fr` },
});
await new Promise((r) => setTimeout(r, 300));
on = false;
console.log(res.statusCode, log.length);
for (const l of log) console.log(" ", l);
await t.close();
process.exit(0);
