import { createContext } from "../lib/context.ts";
import { databases } from "../lib/databases.ts";
import { readYourWritesStep } from "./ryw.ts";

const dbs = databases("postgres://postgres@127.0.0.1:5432/postgres");
const ctx = createContext({ seconds: 5, connections: 32, big: false, dbs });
try {
  await readYourWritesStep(ctx);
} finally {
  await dbs.dropAll();
}
console.log(JSON.stringify(ctx.raw.readYourWrites));
