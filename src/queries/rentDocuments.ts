import type { ArrearsCall } from "../law/arrears.ts";
import { cents, toEuros } from "../law/money.ts";
import type { Sql } from "../platform/db.ts";
import { unprocessable } from "../platform/errors.ts";
import { isoDay } from "../platform/formatDates.ts";
import { renderInThread } from "../platform/pdf/renderInThread.ts";
import { compileTemplate, documentOf, markupToContent } from "../platform/pdf/renderTemplate.ts";
import type { Row } from "../platform/projections/projection.ts";
import { dwellingAddressOf } from "./leaseContractFacts.ts";

/**
 * The rent cycle's letters and receipts (docs/rent-cycle.md, "Documents"): quittance, reçu,
 * reminders, formal notice and the arrears statement, as handlebars markup of
 * src/platform/pdf/renderTemplate.ts. A tenant's own template (settings, `readTemplate`) replaces
 * the built-in one of the same code; both read the same view, whose variables are the settings
 * contract's (landlord, lessees, estate, lease, call, receipt, reminder, arrears, sender).
 */

export type DocumentCode =
  | "quittance"
  | "recu"
  | "reminder"
  | "second-reminder"
  | "formal-notice"
  | "arrears-statement";
/** The built-in documents: the tenant's templates, and the avis d'échéance (built in only, for now). */
type BuiltInCode = DocumentCode | "avis";

// ---------------------------------------------------------------- facts

/** Who and what a letter names, from read models only. */
export interface LetterFacts {
  lease_id: string;
  lease_status: string;
  lease_type: string;
  start_date: string;
  /** The day the lease was concluded (signed_at, else its start): art. 24's delay depends on it. */
  concluded_on: string | null;
  rent_amount: number;
  charges_amount: number;
  landlord: { name: string; address: string; iban?: string; bic?: string };
  /** The owner whose name the letters print (a data subject of the messages that carry them). */
  owner_id: string | null;
  lessees: { lessee_id: string; first_name: string; last_name: string; email: string }[];
  /** Active guarantors: a commandement de payer is served on them too (art. 24 I al. 3). */
  guarantor_count: number;
  estate: { address: string };
}

const LETTER_FACTS = `
  SELECT to_jsonb(l) AS lease,
    (SELECT coalesce(jsonb_agg(jsonb_build_object('lessee_id', a.lessee_id, 'first_name', coalesce(p.first_name, p.legal_name, ''),
         'last_name', coalesce(p.last_name, ''), 'email', p.email)
       ORDER BY CASE a.role WHEN 'Primary' THEN 0 WHEN 'CoTenant' THEN 1 ELSE 2 END, a.created_at, a.lessee_id), '[]')
     FROM lease_lessees a JOIN lessees p ON p.tenant_id = a.tenant_id AND p.id = a.lessee_id
     WHERE a.tenant_id = l.tenant_id AND a.lease_id = l.id AND NOT a.ended AND a.role <> 'Guarantor') AS lessees,
    (SELECT count(*)::int FROM lease_lessees g
      WHERE g.tenant_id = l.tenant_id AND g.lease_id = l.id AND NOT g.ended AND g.role = 'Guarantor') AS guarantor_count,
    e.address AS estate_address, e.name AS estate_name,
    (SELECT to_jsonb(x) FROM places x WHERE x.tenant_id = l.tenant_id AND x.id = e.place_id) AS place,
    (SELECT to_jsonb(o) FROM owners o WHERE o.tenant_id = l.tenant_id AND o.id = e.owner_id) AS owner
  FROM leases l LEFT JOIN estates e ON e.tenant_id = l.tenant_id AND e.id = l.estate_id
  WHERE l.tenant_id = $1 AND l.id = $2`;

const joined = (...parts: unknown[]) =>
  parts
    .filter((p) => typeof p === "string" && p.trim() !== "")
    .join(" ")
    .trim();

/** `FR76 3000 6000 0112 3456 7890 189`: an IBAN in groups of four, as printed on a RIB. */
const printedIban = (iban: unknown) =>
  typeof iban === "string"
    ? (
        iban
          .replace(/\s+/g, "")
          .toUpperCase()
          .match(/.{1,4}/g) ?? []
      ).join(" ")
    : "";

function ownerOf(owner: Row | null): LetterFacts["landlord"] {
  if (!owner) return { name: "Le bailleur", address: "", iban: "", bic: "" };
  const name = joined(owner.first_name, owner.last_name) || joined(owner.legal_name) || "Le bailleur";
  const address = [owner.address_street, joined(owner.address_postal_code, owner.address_city)]
    .filter((p) => typeof p === "string" && p !== "")
    .join(", ");
  return {
    name,
    address,
    iban: printedIban(owner.iban),
    bic: typeof owner.bic === "string" ? owner.bic : "",
  };
}

/** The letter facts of a lease of the tenant; null when it has none. */
export async function readLetterFacts(
  sql: Sql,
  tenantId: string,
  leaseId: string,
): Promise<LetterFacts | null> {
  const [row] = await sql.asTenant(tenantId, (tx) =>
    tx.query<Row>(LETTER_FACTS, [tenantId, leaseId], { prepare: true }),
  );
  if (!row) return null;
  const lease = row.lease as Row;
  const start = isoDay(lease.start_date) ?? "";
  return {
    lease_id: String(lease.id),
    lease_status: String(lease.status),
    lease_type: String(lease.lease_type),
    start_date: start,
    concluded_on: isoDay(lease.signed_at) ?? (start || null),
    rent_amount: Number(lease.rent_amount),
    charges_amount: Number(lease.charges_amount ?? 0),
    landlord: ownerOf((row.owner as Row | null) ?? null),
    owner_id: ((row.owner as Row | null)?.id as string | undefined) ?? null,
    lessees: (row.lessees as LetterFacts["lessees"]) ?? [],
    guarantor_count: Number(row.guarantor_count ?? 0),
    // The dwelling's full address: the estate's own, else its place's (a building's lots share it).
    estate: {
      address:
        dwellingAddressOf({ address: row.estate_address }, (row.place as Row | null) ?? null) ??
        String(row.estate_name ?? ""),
    },
  };
}

// ---------------------------------------------------------------- view

export type CallFigures = ArrearsCall;

export interface DocumentView {
  landlord: { name: string; address: string };
  lessees: { first_name: string; last_name: string; email: string }[];
  lessee_names: string;
  estate: { address: string };
  lease: { id: string; reference: string };
  call: Omit<CallFigures, "call_id"> & { remaining_amount: number };
  receipt: { number: string; issued_on: string };
  reminder: { level: number; kind: string; days_late: number };
  arrears: {
    total: number;
    as_of: string;
    periods: (Omit<CallFigures, "call_id"> & {
      remaining_amount: number;
      days_late: number;
      opening?: boolean;
    })[];
    monthly_rent: number;
    monthly_charges: number;
    payment_delay: string;
    clause_effective_from: string;
    required_mentions: string[];
  };
  sender: { name: string; email: string };
  /** How to pay a call (the avis): the lessor's account, and the call's own reference when it has one. */
  payment: {
    iban: string;
    bic: string;
    reference: string;
    /**
     * The SEPA pre-notification of a lease paid by direct debit with an active mandate (EPC SDD Core
     * rulebook): the amount, the debit date, the creditor identifier (ICS) and the mandate's RUM;
     * empty strings (and 0) otherwise.
     */
    direct_debit: DirectDebitNotice;
  };
}

export interface DirectDebitNotice {
  amount: number;
  date: string;
  creditor_id: string;
  rum: string;
}
export const NO_DIRECT_DEBIT: DirectDebitNotice = { amount: 0, date: "", creditor_id: "", rum: "" };

const EMPTY_CALL = {
  period_start: "",
  period_end: "",
  due_date: "",
  rent_amount: 0,
  charges_amount: 0,
  total_amount: 0,
  paid_amount: 0,
  remaining_amount: 0,
};

/** A call's figures from its `rent_calls` row. */
export const callFiguresOfRow = (r: Row): CallFigures => ({
  call_id: String(r.id),
  period_start: isoDay(r.period_start) ?? "",
  period_end: isoDay(r.period_end) ?? "",
  due_date: isoDay(r.due_date) ?? "",
  rent_amount: Number(r.rent_amount),
  charges_amount: Number(r.charges_amount),
  total_amount: Number(r.total_amount),
  paid_amount: Number(r.paid_amount),
});

export const callView = (call: CallFigures): DocumentView["call"] => ({
  period_start: call.period_start,
  period_end: call.period_end,
  due_date: call.due_date,
  rent_amount: call.rent_amount,
  charges_amount: call.charges_amount,
  total_amount: call.total_amount,
  paid_amount: call.paid_amount,
  remaining_amount: toEuros(Math.max(0, cents(call.total_amount) - cents(call.paid_amount))),
});

/** Every variable present (strict templates): what a document does not concern is empty. */
export function documentView(
  facts: LetterFacts,
  parts: Partial<Pick<DocumentView, "call" | "receipt" | "reminder" | "arrears" | "sender" | "payment">>,
): DocumentView {
  return {
    landlord: facts.landlord,
    lessees: facts.lessees,
    lessee_names: facts.lessees.map((l) => joined(l.first_name, l.last_name)).join(", ") || "le locataire",
    estate: facts.estate,
    lease: { id: facts.lease_id, reference: facts.lease_id.slice(0, 8).toUpperCase() },
    call: parts.call ?? EMPTY_CALL,
    receipt: parts.receipt ?? { number: "", issued_on: "" },
    reminder: parts.reminder ?? { level: 0, kind: "", days_late: 0 },
    arrears: parts.arrears ?? {
      total: 0,
      as_of: "",
      periods: [],
      monthly_rent: facts.rent_amount,
      monthly_charges: facts.charges_amount,
      payment_delay: "",
      clause_effective_from: "",
      required_mentions: [],
    },
    sender: parts.sender ?? { name: facts.landlord.name, email: "" },
    payment: parts.payment ?? {
      iban: facts.landlord.iban ?? "",
      bic: facts.landlord.bic ?? "",
      reference: "",
      direct_debit: NO_DIRECT_DEBIT,
    },
  };
}

// ---------------------------------------------------------------- built-in templates

const parties = `Bailleur : **{{landlord.name}}**{{#if landlord.address}}, {{landlord.address}}{{/if}}

Locataire(s) : **{{lessee_names}}**

Logement : {{estate.address}}`;

const BUILT_IN: Record<BuiltInCode, string> = {
  avis: `# Avis d'échéance

${parties}

Madame, Monsieur,

Voici le montant dû pour la période du {{longDate call.period_start}} au {{longDate call.period_end}}, à régler au plus tard le **{{longDate call.due_date}}**.

| Période du {{longDate call.period_start}} au {{longDate call.period_end}} | Montant |
| Loyer (hors charges) | {{money call.rent_amount}} |
| Charges | {{money call.charges_amount}} |
| Total à payer | {{money call.total_amount}} |
{{#if call.paid_amount}}
| Déjà payé | {{money call.paid_amount}} |
| Reste à payer | {{money call.remaining_amount}} |
{{/if}}

## Comment payer

{{#if payment.direct_debit.rum}}Prélèvement SEPA de **{{money payment.direct_debit.amount}}** le **{{longDate payment.direct_debit.date}}**, selon le mandat de prélèvement que vous avez signé : vous n'avez rien à faire. Cet avis vaut pré-notification du prélèvement (règlement du prélèvement SEPA, 14 jours calendaires au moins avant le débit).

{{#if payment.direct_debit.creditor_id}}Identifiant créancier SEPA (ICS) de {{landlord.name}} : **{{payment.direct_debit.creditor_id}}**{{/if}}

Référence unique du mandat (RUM) : **{{payment.direct_debit.rum}}**

{{else}}{{#if payment.iban}}Par virement au compte du bailleur {{landlord.name}} : IBAN **{{payment.iban}}**{{#if payment.bic}}, BIC {{payment.bic}}{{/if}}.{{else}}Selon les modalités convenues au bail avec {{landlord.name}}.{{/if}}

{{#if payment.reference}}Référence à indiquer avec votre paiement : **{{payment.reference}}**{{/if}}

{{/if}}
Cet avis n'est pas une quittance : la quittance vous sera délivrée gratuitement une fois l'échéance intégralement payée (loi n° 89-462 du 6 juillet 1989, art. 21).
`,
  quittance: `# Quittance de loyer n° {{receipt.number}}

${parties}

Je soussigné(e) {{landlord.name}}, bailleur du logement désigné ci-dessus, déclare avoir reçu de {{lessee_names}} la somme de **{{money call.paid_amount}}** au titre du loyer et des charges de la période du {{longDate call.period_start}} au {{longDate call.period_end}}, et lui en donne quittance.

| Détail des sommes versées | Montant |
| Loyer (hors charges) | {{money call.rent_amount}} |
| Charges | {{money call.charges_amount}} |
| Total versé | {{money call.total_amount}} |

Échéance du {{longDate call.due_date}}. Quittance délivrée gratuitement le {{longDate receipt.issued_on}} (loi n° 89-462 du 6 juillet 1989, art. 21) : aucuns frais ne peuvent être facturés au locataire pour son établissement ou son envoi (art. 21 et art. 4 p).
`,
  recu: `# Reçu de paiement partiel

${parties}

Je soussigné(e) {{landlord.name}} déclare avoir reçu de {{lessee_names}} la somme de **{{money call.paid_amount}}** en paiement partiel de l'échéance de la période du {{longDate call.period_start}} au {{longDate call.period_end}}.

| Échéance du {{longDate call.due_date}} | Montant |
| Loyer (hors charges) | {{money call.rent_amount}} |
| Charges | {{money call.charges_amount}} |
| Montant de l'échéance | {{money call.total_amount}} |
| Payé | {{money call.paid_amount}} |
| Reste dû | {{money call.remaining_amount}} |

Ce reçu n'est pas une quittance : la quittance sera délivrée, gratuitement, une fois l'échéance intégralement payée (loi n° 89-462 du 6 juillet 1989, art. 21). Reçu délivré gratuitement le {{longDate receipt.issued_on}}.
`,
  reminder: `# Rappel : loyer de la période du {{longDate call.period_start}} au {{longDate call.period_end}}

Madame, Monsieur,

Sauf erreur de notre part, l'échéance du {{longDate call.due_date}} ({{money call.total_amount}}) n'est pas entièrement réglée : il reste **{{money call.remaining_amount}}** à payer ({{reminder.days_late}} jours après l'échéance).

Si votre paiement est en cours, merci de ne pas tenir compte de ce rappel. Ce rappel est sans frais et n'ajoute aucune pénalité à la somme due (loi n° 89-462 du 6 juillet 1989, art. 4 i et p).

{{landlord.name}} — logement {{estate.address}}
`,
  "second-reminder": `# Second rappel : loyer de la période du {{longDate call.period_start}} au {{longDate call.period_end}}

Madame, Monsieur,

Malgré notre premier rappel, l'échéance du {{longDate call.due_date}} n'est toujours pas entièrement réglée : il reste **{{money call.remaining_amount}}** à payer ({{reminder.days_late}} jours après l'échéance). Nous vous remercions de régulariser ce paiement ou de nous contacter si vous rencontrez une difficulté.

Ce rappel est sans frais et n'ajoute aucune pénalité à la somme due (loi n° 89-462 du 6 juillet 1989, art. 4 i et p).

{{landlord.name}} — logement {{estate.address}}
`,
  "formal-notice": `# Mise en demeure de payer le loyer de la période du {{longDate call.period_start}} au {{longDate call.period_end}}

Madame, Monsieur,

Malgré nos rappels, l'échéance du {{longDate call.due_date}} reste impayée à hauteur de **{{money call.remaining_amount}}** ({{reminder.days_late}} jours après l'échéance). Nous vous mettons en demeure de régler cette somme.

À défaut, le bailleur pourra faire délivrer par un commissaire de justice un commandement de payer visant la clause résolutoire du bail (loi n° 89-462 du 6 juillet 1989, art. 24). Vous pouvez solliciter le fonds de solidarité pour le logement de votre département. Cette mise en demeure est sans frais et n'ajoute aucune pénalité à la somme due (art. 4 i et p).

{{landlord.name}} — logement {{estate.address}}
`,
  "arrears-statement": `# Décompte des sommes dues au {{longDate arrears.as_of}}

${parties}

| Période | Échéance | Montant | Payé | Reste dû | Jours de retard |
{{#each arrears.periods}}
| {{#if opening}}Solde à la reprise du bail{{else}}{{longDate period_start}} – {{longDate period_end}}{{/if}} | {{longDate due_date}} | {{money total_amount}} | {{money paid_amount}} | {{money remaining_amount}} | {{days_late}} |
{{/each}}

**Total dû : {{money arrears.total}}** — sans frais ni pénalité (loi n° 89-462 du 6 juillet 1989, art. 4 i et p).

## Éléments d'un commandement de payer (loi n° 89-462, art. 24 I)

Loyer mensuel (hors charges) : {{money arrears.monthly_rent}} ; charges mensuelles : {{money arrears.monthly_charges}}.

{{#if arrears.payment_delay}}Délai de paiement après le commandement : {{arrears.payment_delay}} ; signifié le {{longDate arrears.as_of}}, la clause résolutoire ne produirait effet qu'à partir du {{longDate arrears.clause_effective_from}}.{{/if}}

Mentions à peine de nullité :
{{#each arrears.required_mentions}}
- {{this}}
{{/each}}
`,
};

// ---------------------------------------------------------------- rendering

const compiled = new Map<string, (view: DocumentView) => string>();

function templateOf(source: string): (view: DocumentView) => string {
  let template = compiled.get(source);
  if (!template) {
    template = compileTemplate<DocumentView>(source);
    if (compiled.size > 200) compiled.clear();
    compiled.set(source, template);
  }
  return template;
}

/**
 * The document's markup from the tenant's template (`source`, null: the built-in one). A tenant
 * template that fails on this view is a 422 naming it (settings validated it against a sample).
 */
export function documentMarkup(code: BuiltInCode, source: string | null, view: DocumentView): string {
  try {
    return templateOf(source ?? BUILT_IN[code])(view);
  } catch (error) {
    if (source === null) throw error;
    throw unprocessable(`The tenant's template ${code} cannot render this document`, [
      { field: "template", message: error instanceof Error ? error.message : String(error) },
    ]);
  }
}

/** An email from a letter's markup: its first heading is the subject, the rest the text. */
export function letterEmail(markup: string): { subject: string; text: string } {
  const lines = markup.split("\n");
  const at = lines.findIndex((l) => /^#{1,3} /.test(l.trim()));
  const subject = at >= 0 ? lines[at].trim().replace(/^#{1,3} /, "") : "Loyer";
  const body = lines
    .filter((_, i) => i !== at)
    .join("\n")
    .replace(/\*\*/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { subject, text: `${body}\n` };
}

/** A document's PDF bytes (A4), rendered on a render thread (src/platform/pdf/renderInThread.ts). */
export function renderDocument(markup: string, title: string): Promise<Buffer> {
  return renderInThread(import.meta.url, "renderDocumentHere", { markup, title });
}

/** What a render thread runs: pdfmake is loaded there, never on the API thread. */
export async function renderDocumentHere(input: { markup: string; title: string }): Promise<Buffer> {
  const { renderPdf } = await import("../platform/pdf/renderPdf.ts");
  return renderPdf(documentOf(markupToContent(input.markup), { title: input.title }));
}
