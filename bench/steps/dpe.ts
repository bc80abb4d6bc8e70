import type { Context } from "../lib/context.ts";

export async function dpeStep(ctx: Context): Promise<void> {
  ctx.figures.push({ step: "7 DPE list", metric: "skipped", value: "todo", unit: "", target: "", pass: null });
}
