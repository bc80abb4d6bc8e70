import { expect } from "vitest";
import type { z } from "zod";
import { type Decider, type DomainEvent, fold } from "../../src/platform/decider.ts";
import { ApiError, type ErrorDetail } from "../../src/platform/errors.ts";
import { validatorCompiler } from "../../src/platform/http/validatorCompiler.ts";

/**
 * Given / when / then for deciders, shared by every area (docs/conventions.md, "Tests"):
 *
 *   const spec = deciderSpec(placeDecider);
 *   spec.given([created]).when(rename).then([renamed]);
 *   spec.given([created, deleted]).when(rename).thenRefuses(404, /not found/);
 *
 * `then` compares the whole events (use expect.objectContaining inside for parts); `thenEvents`
 * hands them back for finer checks; `thenRefuses` wants an ApiError of that status (and message,
 * and details fields when given).
 */
export function deciderSpec<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
) {
  return {
    given(history: readonly Event[] = []) {
      const state = fold(decider, history);
      return {
        state,
        /** The decision as a function (to call, or to hand to `refusal`), with the assertions on it. */
        when(command: Command) {
          const run = () => decider.decide(command, state);
          return Object.assign(run, {
            // biome-ignore lint/suspicious/noThenProperty: given/when/then reads best; never awaited.
            then(expected: readonly Event[]) {
              expect(run()).toEqual(expected);
            },
            thenEvents(): Event[] {
              return run();
            },
            thenNothing() {
              expect(run()).toEqual([]);
            },
            thenRefuses(status: number, message?: string | RegExp, fields?: readonly string[]): ApiError {
              const error = refusalOf(run);
              expect(error.status, error.message).toBe(status);
              if (message !== undefined) expect(error.message).toMatch(message);
              if (fields !== undefined) expect(error.details?.map((d) => d.field)).toEqual(fields);
              return error;
            },
          });
        },
      };
    },
  };
}

function refusalOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the decider to refuse the command");
}

/**
 * A request body as a route receives it: validated by the platform's validator with the route's
 * schema (read-only fields dropped), refused as the error handler would with `message` (the
 * route's `invalidBodyMessage`). For deciders whose commands carry parsed bodies.
 */
export function validBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  message?: string | ((details: ErrorDetail[]) => string),
): z.output<S> {
  const result = validatorCompiler({ schema, httpPart: "body", method: "POST", url: "/" })(body) as {
    value?: z.output<S>;
    error?: ApiError;
  };
  if (!result.error) return result.value as z.output<S>;
  const details = result.error.details ?? [];
  if (message === undefined) throw result.error;
  throw new ApiError("ValidationError", typeof message === "function" ? message(details) : message, details);
}

/** The ApiError `run` throws (fails the test when it returns). */
export function refusal(run: () => unknown): ApiError {
  return refusalOf(run);
}
