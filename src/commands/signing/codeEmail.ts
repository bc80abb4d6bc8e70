import { frenchDateTime } from "../../platform/frenchText.ts";

/** What the signature code's email says of the lease: the dwelling and its parties, never an id. */
export interface CodeEmailFacts {
  signatory_name: string;
  code: string;
  expires_at: string;
  /** The dwelling's address ("" when unknown). */
  address: string;
  landlord: string;
  tenants: string[];
}

/** The email carrying a signature code (plain French text, the expiry in Paris time). */
export function signatureCodeEmail(facts: CodeEmailFacts): { subject: string; text: string } {
  const dwelling = facts.address ? `du logement ${facts.address}` : "de votre logement";
  const tenants = facts.tenants.length > 0 ? facts.tenants.join(", ") : "—";
  return {
    subject: facts.address
      ? `Votre code de signature du bail : ${facts.address}`
      : "Votre code de signature du bail",
    text: [
      facts.signatory_name ? `Bonjour ${facts.signatory_name},` : "Bonjour,",
      "",
      `Votre code pour signer le bail ${dwelling} : ${facts.code}`,
      `Il est valable 10 minutes (jusqu'au ${frenchDateTime(facts.expires_at)}) et pour 5 essais au plus.`,
      "",
      `Bailleur : ${facts.landlord}`,
      `Locataire(s) : ${tenants}`,
      "",
      "Signature électronique simple (code civil art. 1366). Ne communiquez ce code à personne.",
      "",
    ].join("\n"),
  };
}
