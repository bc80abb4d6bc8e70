import { compileTemplate } from "../../platform/pdf/renderTemplate.ts";

/**
 * The built-in `amendment-notice` template (plain text, handlebars). A tenant's own source, once
 * the settings area stores templates (`readTemplate(sql, tenantId, "amendment-notice")` in
 * src/queries/settings.ts), replaces it: see `noticeTemplateSource` in notify.ts.
 */
export const AMENDMENT_NOTICE_TEMPLATE = `Bonjour {{lessee.first_name}} {{lessee.last_name}}{{lessee.legal_name}},

{{#if (eq amendment.status "PENDING_VALIDATION")}}Un avenant à votre bail{{#if estate.address}} ({{estate.address}}){{/if}} est soumis à votre validation : « {{amendment.title}} », à effet du {{longDate amendment.effective_date}}.{{/if}}{{#if (eq amendment.status "VALIDATED")}}L'avenant à votre bail{{#if estate.address}} ({{estate.address}}){{/if}} « {{amendment.title}} » est validé. Il prend effet le {{longDate amendment.effective_date}}.{{/if}}{{#if (eq amendment.status "REJECTED")}}L'avenant à votre bail{{#if estate.address}} ({{estate.address}}){{/if}} « {{amendment.title}} » est refusé ; le bail reste inchangé.{{/if}}
{{#if amendment.reason}}
Motif : {{amendment.reason}}
{{/if}}
Logement : {{#if estate.address}}{{estate.address}}{{else}}—{{/if}}
Bailleur : {{landlord.name}}
{{#if lessees.length}}Locataire(s) : {{#each lessees}}{{#if @index}}, {{/if}}{{first_name}} {{last_name}}{{/each}}
{{/if}}
Cordialement,
{{sender.name}}
`;

const SUBJECTS = {
  PENDING_VALIDATION: "Avenant à votre bail soumis à validation",
  VALIDATED: "Avenant à votre bail validé",
  REJECTED: "Avenant à votre bail refusé",
} as const;

/**
 * The template's variables: those every template of the settings area sees (landlord, lessees,
 * estate, lease, sender) and the amendment, plus `lessee`, the tenant this copy is for.
 */
export interface NoticeContext {
  landlord: { name: string | null; address: string | null };
  lessee: { first_name: string | null; last_name: string | null; legal_name: string | null; email: string };
  lessees: { first_name: string | null; last_name: string | null; email: string }[];
  lease: { id: string; reference: string };
  estate: { address: string | null };
  amendment: {
    title: string;
    status: keyof typeof SUBJECTS;
    effective_date: string;
    reason: string | null;
  };
  sender: { name: string | null; email: string };
}

/**
 * Subject and text of one tenant's notice; `source` is the tenant's template or the built-in one.
 * Rendered as every letter is (compileTemplate: strict, values flattened to one line, the document
 * helpers), so a template the settings area accepted renders here as it did against its sample.
 */
export function renderAmendmentNotice(
  context: NoticeContext,
  source = AMENDMENT_NOTICE_TEMPLATE,
): { subject: string; text: string } {
  const text = compileTemplate<NoticeContext>(source)(context);
  return {
    subject: `${SUBJECTS[context.amendment.status]} : ${context.amendment.title}`,
    text: text.replace(/\n{3,}/g, "\n\n").trim(),
  };
}
