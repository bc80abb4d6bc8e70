import { describe, expect, it } from "vitest";
import { renderAmendmentNotice } from "../../src/commands/amendmentNotices/template.ts";
import { alertRecipients, meterAlertEmail } from "../../src/commands/meters/alertEmail.ts";
import { signatureCodeEmail } from "../../src/commands/signing/codeEmail.ts";
import { DEFAULT_SENDER_EMAIL } from "../../src/events/settings.ts";

/** The texts of messages (docs/messages.md): French, figures formatted, the dwelling and the parties, no id. */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i;
const LEASE_ID = "2f0c6f4e-8a8e-4a57-9d3e-4bb5c8d1a001";

describe("message texts", () => {
  it("the amendment notice names the dwelling, the landlord and the tenants, never the lease's id", () => {
    const { subject, text } = renderAmendmentNotice({
      landlord: { name: "SCI Les Tilleuls", address: "12 rue des Lilas, 75011 Paris" },
      lessee: { first_name: "Léa", last_name: "Bernard", legal_name: null, email: "lea@example.fr" },
      lessees: [
        { first_name: "Léa", last_name: "Bernard", email: "lea@example.fr" },
        { first_name: "Marc", last_name: "Petit", email: "marc@example.fr" },
      ],
      lease: { id: LEASE_ID, reference: LEASE_ID },
      estate: { address: "3 avenue Foch, 69006 Lyon" },
      amendment: { title: "Loyer révisé", status: "VALIDATED", effective_date: "2026-12-01", reason: null },
      sender: { name: "Gestion Dupont", email: "gestion@dupont-immo.fr" },
    });
    expect(subject).toBe("Avenant à votre bail validé : Loyer révisé");
    expect(text).toContain("Il prend effet le 1er décembre 2026.");
    expect(text).toContain("Logement : 3 avenue Foch, 69006 Lyon");
    expect(text).toContain("Bailleur : SCI Les Tilleuls");
    expect(text).toContain("Locataire(s) : Léa Bernard, Marc Petit");
    expect(text).not.toMatch(UUID);
  });

  it("the signature code names the dwelling and the parties, its expiry in Paris time", () => {
    const { subject, text } = signatureCodeEmail({
      signatory_name: "Léa Bernard",
      code: "042917",
      expires_at: "2026-12-01T21:52:00.000Z",
      address: "3 avenue Foch, 69006 Lyon",
      landlord: "SCI Les Tilleuls",
      tenants: ["Léa Bernard"],
    });
    expect(subject).toBe("Votre code de signature du bail : 3 avenue Foch, 69006 Lyon");
    expect(text).toContain("Votre code pour signer le bail du logement 3 avenue Foch, 69006 Lyon : 042917");
    expect(text).toContain("jusqu'au 1er décembre 2026 à 22 h 52");
    expect(text).toContain("Bailleur : SCI Les Tilleuls");
    expect(text).toContain("Locataire(s) : Léa Bernard");
    expect(text).not.toMatch(UUID);
    expect(text).not.toMatch(/T\d{2}:\d{2}/);
  });

  it("a meter alert is French, its figures formatted, the meter named by kind, label and dwelling", () => {
    const meterId = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
    const { subject, text } = meterAlertEmail(
      [
        {
          meter_id: meterId,
          reading_id: "8d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6",
          read_on: "2026-12-01",
          value: 12043.5,
          consumption: 800,
          daily_consumption: 80,
          average_daily_consumption: 10.25,
        },
      ],
      new Map([
        [
          meterId,
          {
            type: "WATER_COLD",
            label: "Cuisine",
            serial: null,
            unit: "m3",
            address: "3 avenue Foch, 69006 Lyon",
          },
        ],
      ]),
    );
    expect(subject).toBe("Consommation anormale : 1 relevé de compteur");
    expect(text).toContain(
      "- Compteur eau froide Cuisine (3 avenue Foch, 69006 Lyon), relevé du 1er décembre 2026 : index 12 043,5, 80 m3 par jour contre 10,25 m3 en moyenne",
    );
    expect(text).not.toMatch(UUID);
  });

  it("an alert goes to the configured addresses, else the sender, never to the no-reply address", () => {
    const sender = { name: "Gestion Dupont", email: "gestion@dupont-immo.fr" };
    expect(alertRecipients({ sender, alert_emails: ["a@x.fr", "b@x.fr"] })).toEqual([
      { email: "a@x.fr", name: null },
      { email: "b@x.fr", name: null },
    ]);
    expect(alertRecipients({ sender })).toEqual([
      { email: "gestion@dupont-immo.fr", name: "Gestion Dupont" },
    ]);
    expect(alertRecipients({ sender: { name: "Dupont", email: DEFAULT_SENDER_EMAIL } })).toEqual([]);
  });
});
