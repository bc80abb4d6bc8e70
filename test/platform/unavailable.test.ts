import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresSql } from "../../src/platform/db.ts";
import { errorHandler } from "../../src/platform/http/errorHandler.ts";

/** A database that cannot take the request answers 503 with Retry-After, never 500 (docs/decisions.md). */
describe("database unavailable", () => {
  // Nothing listens on port 1: every connection is refused, as when the server is down.
  const down = createPostgresSql("postgres://postgres@127.0.0.1:1/pms");
  afterAll(() => down.close());

  const appThrowing = async (fail: () => Promise<unknown>) => {
    const app = Fastify();
    await app.register(errorHandler);
    app.get("/x", async () => fail());
    return app;
  };

  it("a refused connection is a 503 in the error shape, with Retry-After", async () => {
    const app = await appThrowing(() => down.query("SELECT 1"));
    const res = await app.inject({ method: "GET", url: "/x" });
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.json()).toEqual({
      error: "ServiceUnavailable",
      message: "The database is busy or unreachable; retry shortly",
    });
  });

  it.each([
    ["53300", "sorry, too many clients already"],
    ["57P01", "terminating connection due to administrator command"],
    ["57P03", "the database system is starting up"],
    ["08006", "connection failure"],
  ])("PostgreSQL's %s (%s) is a 503", async (code, message) => {
    const app = await appThrowing(async () => {
      throw Object.assign(new Error(message), { code, severity: "FATAL" });
    });
    const res = await app.inject({ method: "GET", url: "/x" });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toBe("ServiceUnavailable");
  });

  it("other database errors stay a 500 that says nothing of SQL", async () => {
    const app = await appThrowing(async () => {
      throw Object.assign(new Error('relation "x" does not exist'), { code: "42P01" });
    });
    const res = await app.inject({ method: "GET", url: "/x" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: "InternalError", message: "Internal error" });
  });
});
