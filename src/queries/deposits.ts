import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { legalToday } from "../law/calendar.ts";
import { DEDUCTION_KINDS, latePenalty } from "../law/depositReturn.ts";
import type { Sql } from "../platform/db.ts";
import { notFound } from "../platform/errors.ts";
import { tenantOf } from "../platform/http/auth.ts";
import { answers } from "../platform/http/responses.ts";
import { uuid } from "../platform/http/schemas.ts";
import type { Row } from "../platform/projections/projection.ts";
import { leaseParams } from "./leaseBodies.ts";

/** A lease's deposit (docs/moving.md "Deposit"): the `lease_deposits` read model. */

export const deductionBody = z
  .strictObject({
    kind: z.enum(DEDUCTION_KINDS),
    amount: z.number(),
    description: z.string(),
    rent_call_id: uuid().nullable(),
    invoice_media_id: uuid().nullable(),
  })
  .meta({ id: "DepositDeduction" });

export const depositBody = z
  .strictObject({
    lease_id: uuid(),
    status: z
      .enum(["RUNNING", "DUE", "RETURNED"])
      .describe("RUNNING: the lease runs; DUE: the lease has ended, the deposit not yet returned; RETURNED"),
    amount: z.number(),
    keys_returned_on: z.iso.date().nullable(),
    exit_report_id: uuid().nullable(),
    exit_report_matches: z.boolean().nullable(),
    due_on: z.iso.date().nullable(),
    deductions: z.array(deductionBody),
    held: z.number().describe("Held until the building's annual accounts (art. 22 al. 5), at most 20 %"),
    returned_on: z.iso.date().nullable(),
    returned_amount: z.number().nullable().describe("returned_amount + sum(deductions) + held = amount"),
    late_months: z.number().int(),
    late_penalty: z
      .number()
      .describe("10 % of the monthly rent per started month late (art. 22 al. 7); unreturned: as of today"),
    balance: z
      .strictObject({
        settled_on: z.iso.date(),
        accounts_approved_on: z.iso.date(),
        charges_deducted: z.number(),
        balance_returned: z.number().describe("held − charges_deducted"),
        due_on: z.iso.date().describe("A month after the building's accounts' approval (art. 22 al. 5)"),
        late_months: z.number().int(),
        late_penalty: z.number(),
      })
      .nullable()
      .describe("The held part settled once the building's accounts were approved; null: not yet"),
  })
  .meta({ id: "LeaseDeposit" });
export type DepositAnswer = z.output<typeof depositBody>;

const day = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** The lease's deposit; null when the tenant has no such lease. */
export async function readDeposit(sql: Sql, tenantId: string, leaseId: string, today = legalToday()) {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(
      `SELECT amount, monthly_rent, ended, to_char(keys_returned_on, 'YYYY-MM-DD') AS keys_returned_on, exit_report_id,
         exit_report_matches, to_char(due_on, 'YYYY-MM-DD') AS due_on, to_char(returned_on, 'YYYY-MM-DD') AS returned_on,
         deductions, held, returned_amount, late_months, late_penalty, balance
       FROM lease_deposits WHERE tenant_id = $1 AND id = $2`,
      [tenantId, leaseId],
    ),
  );
  if (!row) return null;
  const due_on = day(row.due_on);
  const returned_on = day(row.returned_on);
  const accruing =
    due_on !== null && returned_on === null ? latePenalty(due_on, today, Number(row.monthly_rent)) : null;
  const answer: DepositAnswer = {
    lease_id: leaseId,
    status: returned_on !== null ? "RETURNED" : row.ended === true ? "DUE" : "RUNNING",
    amount: Number(row.amount),
    keys_returned_on: day(row.keys_returned_on),
    exit_report_id: (row.exit_report_id as string | null) ?? null,
    exit_report_matches: (row.exit_report_matches as boolean | null) ?? null,
    due_on,
    deductions: (row.deductions as DepositAnswer["deductions"] | null) ?? [],
    held: Number(row.held ?? 0),
    returned_on,
    returned_amount: row.returned_amount === null ? null : Number(row.returned_amount),
    late_months: accruing ? (accruing.details.late_months as number) : Number(row.late_months ?? 0),
    late_penalty: accruing ? (accruing.details.late_penalty as number) : Number(row.late_penalty ?? 0),
    balance: (row.balance as DepositAnswer["balance"]) ?? null,
  };
  return answer;
}

/** The facts a return needs: the deposit as the termination left it. */
export async function readDepositFacts(sql: Sql, tenantId: string, leaseId: string) {
  const deposit = await readDeposit(sql, tenantId, leaseId);
  if (!deposit) return null;
  // In copropriété: its rules recorded on the estate, or a syndic budget voted for its place.
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<{ monthly_rent: string; copropriete: boolean }>(
      `SELECT d.monthly_rent,
              EXISTS (SELECT 1 FROM estate_diagnostics g WHERE g.tenant_id = l.tenant_id AND g.estate_id = l.estate_id
                         AND g.type = 'coownership_rules' AND g.active)
           OR EXISTS (SELECT 1 FROM syndic_budgets b JOIN estates e ON e.tenant_id = b.tenant_id AND e.place_id = b.place_id
                       WHERE b.tenant_id = l.tenant_id AND e.id = l.estate_id) AS copropriete
         FROM lease_deposits d JOIN leases l ON l.tenant_id = d.tenant_id AND l.id = d.id
        WHERE d.tenant_id = $1 AND d.id = $2`,
      [tenantId, leaseId],
    ),
  );
  return {
    deposit,
    monthly_rent: Number(row?.monthly_rent ?? 0),
    // Not recorded is not "no": the law answers so (src/law/depositReturn.ts).
    in_copropriete: row?.copropriete === true ? true : null,
  };
}

export async function depositQueries(app: FastifyInstance): Promise<void> {
  const { sql } = app.platform;
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/leases/:lease_id/deposit",
    {
      schema: {
        tags: ["Moving in and out"],
        summary:
          "The lease's deposit: amount, due day, deductions, what was returned, the late penalty (art. 22)",
        params: leaseParams,
        response: answers(depositBody),
      },
      config: { access: "FinanceRead" },
    },
    async (request) => {
      const found = await readDeposit(sql, tenantOf(request), request.params.lease_id);
      if (!found) throw notFound("Lease", request.params.lease_id);
      return found;
    },
  );
}
