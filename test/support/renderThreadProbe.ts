import { existsSync, writeFileSync } from "node:fs";

/** Render functions for test/platform/renderInThread.test.ts, run on a render thread. */

export async function echo(input: { text: string }): Promise<Buffer> {
  return Buffer.from(`%PDF-${input.text}`);
}

export async function refuse(): Promise<Buffer> {
  throw new Error("no template for this");
}

/** Kills its thread the first time (`marker` absent), answers the next time. */
export async function dieOnce(input: { marker: string }): Promise<Buffer> {
  if (!existsSync(input.marker)) {
    writeFileSync(input.marker, "died");
    process.exit(1);
  }
  return Buffer.from("%PDF-again");
}

/** Kills its thread every time. */
export async function dieAlways(): Promise<Buffer> {
  process.exit(1);
}
