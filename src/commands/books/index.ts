import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  type BookEvent,
  type BookState,
  bookStream,
  evolveBook,
  initialBookState,
} from "../../events/books/index.ts";
import { legalToday } from "../../law/calendar.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict, notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { handleCommand, replyAfterProjection } from "../../platform/http/handleCommand.ts";
import { answers } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { bookBody, readBook } from "../../queries/books/index.ts";

/** Closing a fiscal year of a book (docs/accounting.md, "Closing a year"). */
export interface CloseBookYear {
  type: "CloseBookYear";
  book_id: string;
  year: number;
  today: string;
}

export const bookDecider: Decider<BookState, CloseBookYear, BookEvent> = {
  initialState: initialBookState,
  evolve: evolveBook,
  decide(command, state) {
    const { year, today } = command;
    // A year is closed once it is over, and years close in order: an earlier one stays open otherwise.
    if (year >= Number(today.slice(0, 4)))
      throw conflict(`The year ${year} is not over yet: it can be closed from ${year + 1}-01-01`);
    if (state.closed_through !== null && year <= state.closed_through)
      throw conflict(`The year ${year} is already closed (closed through ${state.closed_through})`);
    if (state.closed_through !== null && year !== state.closed_through + 1)
      throw conflict(`Close ${state.closed_through + 1} first: years close in order`);
    return [{ type: "BookPeriodClosed", data: { book_id: command.book_id, year, closed_on: today } }];
  },
};

const params = z.strictObject({
  book_id: uuid(),
  year: z.coerce.number().int().min(1900).max(2200),
});

export async function bookCommandRoutes(app: FastifyInstance): Promise<void> {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/books/:book_id/periods/:year/close",
    {
      schema: {
        tags: ["Books"],
        summary:
          "Close a fiscal year of a book: it takes no new entry, later postings are dated in the next year",
        params,
        response: answers(bookBody),
      },
      config: { access: "FinanceWrite" },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { book_id, year } = request.params;
      if (!(await readBook(sql, tenantId, book_id))) throw notFound("Book", book_id);
      const result = await handleCommand(request, bookStream(book_id), bookDecider, {
        type: "CloseBookYear",
        book_id,
        year,
        today: legalToday(),
      });
      return replyAfterProjection(request, reply, {
        position: result.position,
        status: 200,
        id: book_id,
        read: () => readBook(sql, tenantId, book_id),
      });
    },
  );
}
