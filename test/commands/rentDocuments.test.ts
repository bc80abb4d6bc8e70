import { describe, expect, it } from "vitest";
import {
  callView,
  type DocumentCode,
  documentMarkup,
  documentView,
  type LetterFacts,
  letterEmail,
} from "../../src/queries/rentDocuments.ts";
import { missingVariables } from "../../src/queries/settings.ts";
import { sampleLetterFacts } from "../support/letterFactsSample.ts";

/** The rent cycle's documents: every settings variable in the view, the built-in wording, tenant templates. */

const facts: LetterFacts = sampleLetterFacts;
const call = callView({
  call_id: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
  period_start: "2026-03-01",
  period_end: "2026-03-31",
  due_date: "2026-03-05",
  rent_amount: 800,
  charges_amount: 50,
  total_amount: 850,
  paid_amount: 300,
});
const views: Record<DocumentCode, ReturnType<typeof documentView>> = {
  quittance: documentView(facts, {
    call: { ...call, paid_amount: 850, remaining_amount: 0 },
    receipt: { number: "Q-2026-000007", issued_on: "2026-03-06" },
  }),
  recu: documentView(facts, { call, receipt: { number: "", issued_on: "2026-03-06" } }),
  reminder: documentView(facts, { call, reminder: { level: 1, kind: "REMINDER", days_late: 5 } }),
  "second-reminder": documentView(facts, {
    call,
    reminder: { level: 2, kind: "SECOND_REMINDER", days_late: 15 },
  }),
  "formal-notice": documentView(facts, {
    call,
    reminder: { level: 3, kind: "FORMAL_NOTICE", days_late: 30 },
  }),
  "arrears-statement": documentView(facts, {
    arrears: {
      total: 550,
      as_of: "2026-03-20",
      periods: [{ ...call, days_late: 15 }],
      monthly_rent: 800,
      monthly_charges: 50,
      payment_delay: "deux mois",
      clause_effective_from: "2026-05-20",
      required_mentions: ["le décompte de la dette"],
    },
  }),
};

describe("rent cycle documents", () => {
  it.each(Object.keys(views) as DocumentCode[])(
    "%s: the view holds every variable a tenant template may use",
    (code) => {
      expect(missingVariables(code, views[code])).toEqual([]);
    },
  );

  it("the quittance states rent and charges apart, its number, free (art. 21)", () => {
    const markup = documentMarkup("quittance", null, views.quittance);
    expect(markup).toContain("# Quittance de loyer n° Q-2026-000007");
    expect(markup).toContain("| Loyer (hors charges) | 800,00 € |");
    expect(markup).toContain("| Charges | 50,00 € |");
    expect(markup).toContain("gratuitement");
  });

  it("the reçu states what was paid and what is still due", () => {
    const markup = documentMarkup("recu", null, views.recu);
    expect(markup).toContain("| Payé | 300,00 € |");
    expect(markup).toContain("| Reste dû | 550,00 € |");
  });

  it("a reminder becomes an email: its heading the subject, no fee, the remaining amount", () => {
    const email = letterEmail(documentMarkup("reminder", null, views.reminder));
    expect(email.subject).toBe("Rappel : loyer de la période du 1er mars 2026 au 31 mars 2026");
    expect(email.text).toContain("il reste 550,00 € à payer (5 jours après l'échéance)");
    expect(email.text).toContain("sans frais");
    expect(email.text).not.toContain("**");
  });

  it.each(["reminder", "second-reminder", "formal-notice"] as const)(
    "%s: long French dates, French amounts, the dwelling and the landlord, no id",
    (code) => {
      const december = callView({
        call_id: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
        period_start: "2026-12-01",
        period_end: "2026-12-31",
        due_date: "2026-12-01",
        rent_amount: 1000,
        charges_amount: 43.31,
        total_amount: 1043.31,
        paid_amount: 0,
      });
      const view = documentView(facts, {
        call: december,
        reminder: { level: 1, kind: "REMINDER", days_late: 5 },
      });
      const { subject, text } = letterEmail(documentMarkup(code, null, view));
      expect(subject).toContain("du 1er décembre 2026 au 31 décembre 2026");
      expect(text).toContain("l'échéance du 1er décembre 2026");
      expect(text).toContain("1 043,31 €");
      expect(text).toContain(facts.estate.address);
      expect(text).toContain(facts.landlord.name);
      expect(`${subject}\n${text}`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\d{2}\/\d{2}\/\d{4}|\*\*|^#/m);
    },
  );

  it("the arrears statement gives its dates in words", () => {
    const markup = documentMarkup("arrears-statement", null, views["arrears-statement"]);
    expect(markup).toContain("# Décompte des sommes dues au 20 mars 2026");
    expect(markup).toContain("| 1er mars 2026 – 31 mars 2026 | 5 mars 2026 | 850,00 € |");
    expect(markup).toContain("à partir du 20 mai 2026");
    expect(markup).not.toMatch(/\d{2}\/\d{2}\/\d{4}/);
  });

  it("a tenant's template replaces the built-in one; one failing on the view is a 422 naming it", () => {
    expect(
      documentMarkup("quittance", "# Reçu n° {{receipt.number}} de {{landlord.name}}", views.quittance),
    ).toBe("# Reçu n° Q-2026-000007 de SCI Les Tilleuls");
    expect(() => documentMarkup("quittance", "{{nothing.here}}", views.quittance)).toThrow(
      expect.objectContaining({
        status: 422,
        message: "The tenant's template quittance cannot render this document",
      }),
    );
  });

  it("values cannot open markup: a name with a pipe or bold stays text", () => {
    const hostile = documentView({ ...facts, landlord: { name: "A | B **x**", address: "" } }, { call });
    expect(documentMarkup("reminder", null, hostile)).toContain("A / B *x*");
  });
});
