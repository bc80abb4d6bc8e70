import { z } from "zod";
const s = z.strictObject({ a: z.string().optional(), b: z.string().nullish(), r: z.never({ error: "read-only" }).optional(), d: z.union([z.iso.date(), z.iso.datetime({ offset: true, local: true })]) });
console.log(s.safeParse({ d: "2024-02-29" }));
console.log(JSON.stringify(s.safeParse({ d: "2023-02-29", r: null, x: 1 }).error?.issues));
console.log(s.safeParse({ d: "2023-02-28T10:00:00" }).success, s.safeParse({ d: "2023-02-28T10:00:00+02:00" }).success, s.safeParse({ d: "2023-02-28T10:00Z" }).success);
console.log(JSON.stringify(z.string().safeParse(null).error?.issues));
console.log(JSON.stringify(z.string({error: (i)=> i.input === null ? "cannot be null" : undefined}).safeParse(null).error?.issues));
console.log(JSON.stringify(z.number().safeParse(Infinity).error?.issues));
