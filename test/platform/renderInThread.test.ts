import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderInThread } from "../../src/platform/pdf/renderInThread.ts";

/** Render threads (docs/pdf.md, "Render threads"): PDF bytes back, errors as errors, a dead thread replaced. */
describe("renderInThread", () => {
  const probe = new URL("../support/renderThreadProbe.ts", import.meta.url).href;

  it("answers each job with its own bytes, many at once", async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `doc-${i}`);
    const answers = await Promise.all(texts.map((text) => renderInThread(probe, "echo", { text })));
    expect(answers.map((b) => b.toString())).toEqual(texts.map((t) => `%PDF-${t}`));
    expect(Buffer.isBuffer(answers[0])).toBe(true);
  });

  it("rejects a job whose render throws, and goes on with the next", async () => {
    await expect(renderInThread(probe, "refuse", {})).rejects.toThrow(/no template for this/);
    expect((await renderInThread(probe, "echo", { text: "after" })).toString()).toBe("%PDF-after");
  });

  it("sends a job once more to a new thread when its thread dies, and fails it after a second death", async () => {
    const marker = join(tmpdir(), `render-thread-${randomUUID()}`);
    expect((await renderInThread(probe, "dieOnce", { marker })).toString()).toBe("%PDF-again");
    await expect(renderInThread(probe, "dieAlways", {})).rejects.toThrow(/render thread stopped/);
    expect((await renderInThread(probe, "echo", { text: "still" })).toString()).toBe("%PDF-still");
  });
});
