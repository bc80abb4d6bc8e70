import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueReceipt } from "../../src/commands/rentCollection/receipts.ts";
import { sendRentReminders } from "../../src/commands/rentCollection/reminders.ts";
import { issueRentCalls } from "../../src/commands/rentCycle/issueRentCalls.ts";
import { reminderMessageId } from "../../src/events/rentCollection.ts";
import { addDays, legalToday } from "../../src/law/calendar.ts";
import { createWorkerKey } from "../../src/platform/tenants/tenants.ts";
import { eventually } from "../support/eventually.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { pdfText } from "../support/pdfText.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/**
 * Receipts, reminders and arrears through the API and the job (docs/rent-cycle.md): what HTTP
 * adds (statuses, PDFs, tenancy, permissions) and the job's once-only sends; the rules themselves
 * are at their boundaries in test/law and test/commands/rentCollection.decider.test.ts.
 */

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const YEAR = legalToday().slice(0, 4);

interface Call {
  id: string;
  period_start: string;
  due_date: string;
  total_amount: number;
  paid_amount: number;
}

describe.each(databaseKinds)("rent collection API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const deps = () => ({ sql: t.sql, store: t.service.platform.store });
  /** An active lease (800 + 50 a month) with its calls issued as of `asOf`. */
  const leaseWithCalls = async (start: string, asOf: string, as?: TestTenant) => {
    const { id } = await newLease({ start_date: start, rent_amount: 800, charges_amount: 50 }, as);
    const active = await setStatus(id, "ACTIVE", {}, as);
    expect(active.statusCode, active.body).toBe(200);
    const issued = await issueRentCalls(deps(), { today: asOf, tenantId: (as ?? t.tenant).id });
    expect(issued.calls, JSON.stringify(issued)).toBeGreaterThan(0);
    const calls = await eventually(
      async () => {
        const res = await t.request("GET", `/api/leases/${id}/rent-calls`, { as });
        expect(res.statusCode, res.body).toBe(200);
        return res.json() as Call[];
      },
      (found) => found.length >= issued.calls,
    );
    return { id, calls: calls.sort((a, b) => a.period_start.localeCompare(b.period_start)) };
  };
  const pay = async (leaseId: string, amount: number, as?: TestTenant) => {
    const res = await t.request("POST", `/api/leases/${leaseId}/payments`, {
      body: { amount, paid_on: legalToday(), method: "VIREMENT_BANCAIRE" },
      as,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const receipt = (leaseId: string, callId: string, as?: TestTenant) =>
    t.request("GET", `/api/leases/${leaseId}/rent-calls/${callId}/receipt`, { as });

  describe("receipts (loi n° 89-462 art. 21)", () => {
    it("unpaid: 409 and nothing written; partly paid: a reçu; paid: a quittance numbered once", async () => {
      const tenant = await t.newTenant();
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-02-10", tenant);
      expect(calls).toHaveLength(2);
      const [jan, feb] = calls;
      expect(jan.total_amount).toBe(850);

      await writesNothing(async () => {
        const unpaid = await receipt(id, jan.id, tenant);
        expect(unpaid.statusCode, unpaid.body).toBe(409);
        expect(unpaid.json()).toMatchObject({
          error: "Conflict",
          message: expect.stringMatching(/art\. 21/),
        });
      });

      // The estate has no address of its own: the receipts give its place's (the dwelling's).
      const lease = (await t.request("GET", `/api/leases/${id}`, { as: tenant })).json();
      const estate = (await t.request("GET", `/api/estates/${lease.estate_id}`, { as: tenant })).json();
      const street = await t.request("PUT", `/api/places/${estate.place_id}`, {
        body: { address_street: "4 rue Mercière", address_postal_code: "69002", address_city: "Lyon" },
        as: tenant,
      });
      expect(street.statusCode, street.body).toBe(200);
      await pay(id, 300, tenant);
      await writesNothing(async () => {
        const recu = await receipt(id, jan.id, tenant);
        expect(recu.statusCode, recu.body).toBe(200);
        expect(recu.headers["content-type"]).toBe("application/pdf");
        expect(recu.headers["x-receipt-kind"]).toBe("RECU");
        const text = await pdfText(recu.rawPayload);
        expect(text).toContain("Reçu de paiement partiel");
        expect(text).toMatch(/Payé 300,00 €/);
        expect(text).toMatch(/Reste dû 550,00 €/);
        expect(text).toContain("4 rue Mercière, 69002 Lyon");
        expect(text).toContain("période du 1er janvier 2027 au 31 janvier 2027");
        expect(text).not.toMatch(/— bail/);
        expect(text).not.toContain("Quittance de loyer n°");
      });

      await pay(id, 550, tenant);
      const first = await receipt(id, jan.id, tenant);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers["x-receipt-kind"]).toBe("QUITTANCE");
      expect(first.headers["content-disposition"]).toContain(`quittance-Q-${YEAR}-000001.pdf`);
      const text = await pdfText(first.rawPayload);
      expect(text).toContain(`Quittance de loyer n° Q-${YEAR}-000001`);
      // Rent and charges stated apart (art. 21), and free.
      expect(text).toMatch(/Loyer \(hors charges\) 800,00 €/);
      expect(text).toMatch(/Charges 50,00 €/);
      expect(text).toMatch(/Total versé 850,00 €/);
      expect(text).toContain("délivrée gratuitement");
      expect(text).toContain("Camille Martin");
      expect(text).toContain("4 rue Mercière, 69002 Lyon");

      // Asked again: the same number, nothing written.
      await writesNothing(async () => {
        const again = await receipt(id, jan.id, tenant);
        expect(await pdfText(again.rawPayload)).toContain(`n° Q-${YEAR}-000001`);
      });

      // The tenant's own template (settings) replaces the built-in one.
      const saved = await t.request("PUT", "/api/templates/quittance", {
        as: tenant,
        body: {
          source:
            "# Quittance {{receipt.number}}\n\n{{landlord.name}} a reçu {{money call.paid_amount}} : loyer {{money call.rent_amount}}, charges {{money call.charges_amount}}.",
        },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      await pay(id, 850, tenant);
      const second = await pdfText((await receipt(id, feb.id, tenant)).rawPayload);
      expect(second).toContain(`Quittance Q-${YEAR}-000002`);
      expect(second).toMatch(/a reçu 850,00 € : loyer 800,00 €, charges 50,00 €/);
    });

    it("concurrent issues never hand the same number twice; the tenant's prefix; its own series", async () => {
      const tenant = await t.newTenant();
      const saved = await t.request("PUT", "/api/configurations", {
        as: tenant,
        body: {
          reminder_levels: [{ level: 1, days_after_due: 5, kind: "REMINDER" }],
          receipt_numbering: { prefix: "QT", reset: "YEARLY" },
          sender: { name: "SCI Test", email: "gestion@example.org" },
        },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const leases = [];
      for (let i = 0; i < 6; i++) {
        const lease = await leaseWithCalls("2027-01-01", "2027-01-10", tenant);
        await pay(lease.id, 850, tenant);
        leases.push(lease);
      }
      const answers = await Promise.all(leases.map((l) => receipt(l.id, l.calls[0].id, tenant)));
      const numbers = answers.map((res) => {
        expect(res.statusCode, res.body).toBe(200);
        return /quittance-(QT-\d{4}-\d{6})\.pdf/.exec(String(res.headers["content-disposition"]))?.[1];
      });
      expect(numbers.sort()).toEqual([1, 2, 3, 4, 5, 6].map((n) => `QT-${YEAR}-00000${n}`));
      // The same call asked for at once: one number, the next one.
      const seventh = await leaseWithCalls("2027-01-01", "2027-01-10", tenant);
      await pay(seventh.id, 850, tenant);
      const same = await Promise.all([1, 2, 3].map(() => receipt(seventh.id, seventh.calls[0].id, tenant)));
      expect(new Set(same.map((r) => r.headers["content-disposition"]))).toEqual(
        new Set([expect.stringContaining(`QT-${YEAR}-000007.pdf`)]),
      );
      // Another tenant numbers from 1 on its own.
      const other = await leaseWithCalls("2027-01-01", "2027-01-10");
      await pay(other.id, 850);
      const mine = await receipt(other.id, other.calls[0].id);
      expect(mine.statusCode, mine.body).toBe(200);
      expect(String(mine.headers["content-disposition"])).toMatch(/quittance-Q-\d{4}-\d{6}\.pdf/);
    });

    it("one append per stream (EventStoreDB): an issue cut off after its number finds it again", async () => {
      const tenant = await t.newTenant();
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-02-10", tenant);
      await pay(id, 850, tenant);
      const real = t.service.platform.store;
      let cut = true;
      // The engine without multi-stream commits, and a crash after the counter's append.
      const store = {
        ...real,
        appendToStreams: undefined,
        appendToStream: async (...args: Parameters<typeof real.appendToStream>) => {
          if (cut && args[0].startsWith("lease_account-")) {
            cut = false;
            throw new Error("killed between the two appends");
          }
          return real.appendToStream(...args);
        },
        readStream: real.readStream.bind(real),
      };
      const context = {
        sql: t.sql,
        store,
        tenant_id: tenant.id,
        metadata: {
          tenant_id: tenant.id,
          actor_key_id: null,
          correlation_id: null,
          causation_id: null,
          occurred_at: new Date().toISOString(),
        },
      };
      await expect(issueReceipt(context, id, calls[0].id)).rejects.toThrow("killed between the two appends");
      const outcome = await issueReceipt(context, id, calls[0].id);
      expect(outcome.receipt?.number).toBe(`Q-${YEAR}-000001`);
      const res = await receipt(id, calls[0].id, tenant);
      expect(res.headers["content-disposition"]).toContain(`Q-${YEAR}-000001.pdf`);
      // The next call of the tenant takes number 2: the first was not taken twice.
      await pay(id, 850, tenant);
      const next = await receipt(id, calls[1].id, tenant);
      expect(next.headers["content-disposition"]).toContain(`Q-${YEAR}-000002.pdf`);
    });

    it("another tenant's lease, an unknown call: 404; a malformed id: 400; without FinanceRead: 403", async () => {
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-01-10");
      await pay(id, 850);
      expect((await receipt(id, calls[0].id, t.other)).statusCode).toBe(404);
      const unknown = await receipt(id, UNKNOWN);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: "NotFound", message: `Rent call ${UNKNOWN} not found` });
      expect((await receipt(UNKNOWN, calls[0].id)).json()).toMatchObject({
        message: `Lease ${UNKNOWN} not found`,
      });
      const bad = await t.request("GET", `/api/leases/${id}/rent-calls/nope/receipt`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details).toEqual([expect.objectContaining({ field: "call_id" })]);
      const leasesOnly = await t.newTenant(undefined, ["LeasesRead", "LeasesWrite"]);
      const forbidden = await receipt(id, calls[0].id, leasesOnly);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().message).toContain("FinanceRead");
    });
  });

  describe("reminders (the rent-reminders job)", () => {
    const at = (day: string, time = "07:00:00") => new Date(`${day}T${time}Z`);
    // Through the store: a message's recipients and content are sealed at rest (docs/personal-data.md).
    const messageEvents = async (messageId: string) =>
      (await t.service.platform.store.readStream(`message-${messageId}`)).map(({ type, data }) => ({
        type,
        data: data as Record<string, unknown>,
      }));

    it("day 4 nothing, day 5 the first reminder queued once; dry run writes nothing; paid, then reopened", async () => {
      const tenant = await t.newTenant();
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-01-10", tenant);
      const call = calls[0];
      const run = (day: string, dry_run = false, time?: string) =>
        sendRentReminders(deps(), { dry_run, tenant_id: tenant.id, now: at(day, time) });

      expect((await run(addDays(call.due_date, 4))).sent).toEqual([]);
      await writesNothing(async () => {
        const dry = await run(addDays(call.due_date, 5), true);
        expect(dry.sent).toEqual([
          expect.objectContaining({
            lease_id: id,
            call_id: call.id,
            level: 1,
            kind: "REMINDER",
            amount_claimed: 850,
          }),
        ]);
      });
      const day5 = await run(addDays(call.due_date, 5));
      expect(day5.sent.map((s) => [s.level, s.message_id])).toEqual([[1, reminderMessageId(call.id, 1)]]);
      const [queued] = await messageEvents(reminderMessageId(call.id, 1));
      expect(queued.type).toBe("MessageQueued");
      expect(queued.data).toMatchObject({
        topic: "rent-reminder",
        to: [expect.objectContaining({ email: expect.any(String) })],
      });
      // Its lessees (and the owner its letter names; this estate has none): erasing one erases it.
      expect(queued.data.data_subjects).toEqual([expect.stringMatching(/^lessee-/)]);
      expect(String(queued.data.subject)).toContain("Rappel");
      expect(String(queued.data.text)).toContain("850,00 €");
      expect(String(queued.data.text)).toContain("sans frais");

      // The same day again, and the next: no level is sent twice, none new is due.
      await writesNothing(async () => {
        expect((await run(addDays(call.due_date, 5), false, "12:00:00")).sent).toEqual([]);
        expect((await run(addDays(call.due_date, 6))).sent).toEqual([]);
      });
      const listed = await eventually(
        () => t.request("GET", `/api/leases/${id}/reminders`, { as: tenant }),
        (res) => res.json().length > 0 && res.json()[0].delivery_status !== null,
      );
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json()).toEqual([
        expect.objectContaining({
          call_id: call.id,
          level: 1,
          kind: "REMINDER",
          amount_claimed: 850,
          days_late: 5,
          // The test app runs no deliverer: the message waits in the outbox.
          delivery_status: "QUEUED",
        }),
      ]);
      expect(listed.headers["x-total-count"]).toBe("1");

      // Paid: no reminder; the payment cancelled: the next level goes out.
      const payment = await pay(id, 850, tenant);
      expect((await run(addDays(call.due_date, 15))).sent).toEqual([]);
      const cancel = await t.request("POST", `/api/leases/${id}/payments/${payment}/cancel`, {
        as: tenant,
        body: { reason: "Virement rejeté" },
      });
      expect(cancel.statusCode, cancel.body).toBe(200);
      const reopened = await run(addDays(call.due_date, 15));
      expect(reopened.sent.map((s) => [s.level, s.kind])).toEqual([[2, "SECOND_REMINDER"]]);
    });

    it("a reminder names the owner its letter prints: erasing that owner erases the message too", async () => {
      const tenant = await t.newTenant();
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-01-10", tenant);
      const lease = (await t.request("GET", `/api/leases/${id}`, { as: tenant })).json();
      const estate = (await t.request("GET", `/api/estates/${lease.estate_id}`, { as: tenant })).json();
      const owner = await t.request("POST", "/api/owners", {
        body: {
          category: "individual",
          first_name: "Odile",
          last_name: "Bailleresse",
          email: "odile@owner.example",
        },
        as: tenant,
      });
      expect(owner.statusCode, owner.body).toBe(201);
      const ownerId = owner.json().id as string;
      const own = (owner_id: string | null) =>
        t.request("PUT", `/api/places/${estate.place_id}/estates/${estate.id}`, {
          body: { owner_id },
          as: tenant,
        });
      expect((await own(ownerId)).statusCode).toBe(200);

      const call = calls[0];
      await sendRentReminders(deps(), {
        dry_run: false,
        tenant_id: tenant.id,
        now: at(addDays(call.due_date, 5)),
      });
      const messageId = reminderMessageId(call.id, 1);
      const [queued] = await messageEvents(messageId);
      expect(queued.data.data_subjects).toEqual([expect.stringMatching(/^lessee-/), `owner-${ownerId}`]);

      // The estate transferred away, the owner's erasure goes ahead and reaches the reminder.
      expect((await own(null)).statusCode).toBe(200);
      const erased = await t.request("POST", `/api/owners/${ownerId}/erase`, {
        body: { reason: "asked by the owner" },
        as: tenant,
      });
      expect(erased.statusCode, erased.body).toBe(200);
      expect((await messageEvents(messageId)).map((e) => e.type)).toEqual([
        "MessageQueued",
        "MessagePersonalDataErased",
      ]);
      const shown = await eventually(
        () => t.request("GET", `/api/messages/${messageId}`, { as: tenant }),
        (res) => res.json().erased_at != null,
      );
      expect(shown.json()).toMatchObject({ to: null, subject: null });
    });

    it("a run cut off between the reminder and its email: the next run queues it, once, and records nothing again", async () => {
      const tenant = await t.newTenant();
      const { id, calls } = await leaseWithCalls("2027-01-01", "2027-01-10", tenant);
      const call = calls[0];
      const real = t.service.platform.store;
      const cut = {
        ...real,
        readStream: real.readStream.bind(real),
        appendToStreams: real.appendToStreams?.bind(real),
        appendToStream: async (...args: Parameters<typeof real.appendToStream>) => {
          if (args[0].startsWith("message-")) throw new Error("killed before the email was queued");
          return real.appendToStream(...args);
        },
      };
      const day5 = at(addDays(call.due_date, 5));
      const first = await sendRentReminders(
        { sql: t.sql, store: cut },
        { dry_run: false, tenant_id: tenant.id, now: day5 },
      );
      expect(first.failed).toEqual([
        expect.objectContaining({ error: "killed before the email was queued" }),
      ]);
      const messageId = reminderMessageId(call.id, 1);
      expect(await messageEvents(messageId)).toEqual([]);
      // An hour later: the recorded reminder's email is queued; no level is recorded twice.
      const later = new Date(day5.getTime() + 3_600_000);
      const second = await sendRentReminders(deps(), { dry_run: false, tenant_id: tenant.id, now: later });
      expect(second).toMatchObject({ sent: [], failed: [], requeued: 1 });
      expect((await messageEvents(messageId)).map((e) => e.type)).toEqual(["MessageQueued"]);
      const third = await sendRentReminders(deps(), { dry_run: false, tenant_id: tenant.id, now: later });
      expect(third).toMatchObject({ sent: [], requeued: 0 });
      const recorded = await t.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE stream_name = $1 AND type = 'RentReminderSent'",
        [`lease_account-${id}`],
      );
      expect(recorded[0].n).toBe(1);
    });

    it("on demand through the Workers routes, for the worker key's tenant; a dry run lists and sends nothing", async () => {
      const tenant = await t.newTenant();
      const today = legalToday();
      const { id, calls } = await leaseWithCalls(`${addDays(today, -70).slice(0, 7)}-01`, today, tenant);
      const workerKey = (await createWorkerKey(t.sql, tenant.id, "reminders")).key;
      const accountEvents = async () =>
        Number(
          (
            await t.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE stream_name = $1", [
              `lease_account-${id}`,
            ])
          )[0].n,
        );
      const before = await accountEvents();
      const res = await t.request("POST", "/api/workers/jobs/rent-reminders", {
        as: null,
        body: { dry_run: true },
        headers: { "x-api-key": workerKey },
      });
      expect(res.statusCode, res.body).toBe(202);
      const job = await eventually(
        async () =>
          (
            await t.request("GET", `/api/workers/jobs/rent-reminders/${res.json().job_id}`, {
              as: null,
              headers: { "x-api-key": workerKey },
            })
          ).json(),
        (j) => ["completed", "failed", "cancelled"].includes(j.state),
      );
      expect(job.state, JSON.stringify(job)).toBe("completed");
      const overdue = calls.filter((c) => addDays(c.due_date, 5) <= today);
      expect(overdue.length).toBeGreaterThanOrEqual(2);
      expect(job.output).toMatchObject({ dry_run: true, today, failed: [] });
      expect(job.output.sent.map((s: { call_id: string; level: number }) => [s.call_id, s.level])).toEqual(
        overdue.map((c) => [c.id, 1]),
      );
      expect(await accountEvents()).toBe(before);
      const bad = await t.request("POST", "/api/workers/jobs/rent-reminders", {
        as: null,
        body: { dry_run: "yes", fee: 10 },
        headers: { "x-api-key": workerKey },
      });
      expect(bad.statusCode).toBe(400);
    });

    it("GET reminders: 404 for another tenant's lease, 400 for a bad page, 403 without FinanceRead", async () => {
      const { id } = await newLease();
      expect((await t.request("GET", `/api/leases/${id}/reminders`)).json()).toEqual([]);
      expect((await t.request("GET", `/api/leases/${id}/reminders`, { as: t.other })).statusCode).toBe(404);
      expect((await t.request("GET", `/api/leases/${id}/reminders?limit=0`)).statusCode).toBe(400);
      const leasesOnly = await t.newTenant(undefined, ["LeasesRead"]);
      expect((await t.request("GET", `/api/leases/${id}/reminders`, { as: leasesOnly })).statusCode).toBe(
        403,
      );
    });
  });

  describe("arrears", () => {
    it("owed per period, the total, the art. 24 facts; as PDF on Accept: application/pdf", async () => {
      const today = legalToday();
      const start = `${addDays(today, -70).slice(0, 7)}-01`;
      const { id, calls } = await leaseWithCalls(start, today);
      const due = calls.filter((c) => c.due_date <= today);
      expect(due.length).toBeGreaterThanOrEqual(2);
      await pay(id, 100);
      const res = await t.request("GET", `/api/leases/${id}/arrears`);
      expect(res.statusCode, res.body).toBe(200);
      const arrears = res.json();
      const owed = due.reduce((sum, c) => sum + Math.round(c.total_amount * 100), 0) - 10_000;
      expect(arrears.total_owed).toBe(owed / 100);
      expect(arrears.periods.map((p: { call_id: string }) => p.call_id)).toEqual(due.map((c) => c.id));
      expect(arrears.periods[0]).toMatchObject({
        paid_amount: 100,
        remaining_amount: due[0].total_amount - 100,
      });
      expect(arrears.commandement_de_payer).toMatchObject({
        status: "PASS",
        payment_delay: "SIX_WEEKS",
        last_day_to_pay: addDays(today, 42),
        clause_effective_from: addDays(today, 43),
        guarantor_notice: { required: false, notify_by: addDays(today, 15) },
        monthly_rent: 800,
        monthly_charges: 50,
      });

      const pdf = await t.request("GET", `/api/leases/${id}/arrears`, {
        headers: { accept: "application/pdf" },
      });
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers["content-type"]).toBe("application/pdf");
      const text = await pdfText(pdf.rawPayload);
      expect(text).toContain("Décompte des sommes dues");
      for (const mention of ["Période", "Échéance", "Reste dû", "Jours de retard", "sans frais ni pénalité"])
        expect(text).toContain(mention);
      expect(text).toContain("six semaines");
      expect(text).toContain("art. 24 I");
    });

    it("another tenant's lease: 404; a malformed id: 400", async () => {
      const { id } = await newLease();
      expect((await t.request("GET", `/api/leases/${id}/arrears`, { as: t.other })).statusCode).toBe(404);
      expect((await t.request("GET", "/api/leases/x/arrears")).statusCode).toBe(400);
      const empty = await t.request("GET", `/api/leases/${id}/arrears`);
      expect(empty.json()).toMatchObject({ total_owed: 0, periods: [] });
      expect(empty.json().commandement_de_payer.status).toBe("NOT_APPLICABLE");
    });
  });
});
