/**
 * Handlebars templates of the lease contract (markup of src/platform/pdf/renderTemplate.ts).
 * Structure of the contrat type of décret n° 2015-587 du 29 mai 2015 (annex 1 unfurnished, annex 2
 * furnished): I. parties, II. object, III. dates and duration, IV. financial terms, V. works,
 * VI. guarantees, VII. solidarity, VIII. termination clause, IX. fees, X. other conditions,
 * XI. annexes, then signatures. The mobility lease (loi n° 89-462, titre Ier ter, art. 25-12 ff.)
 * has no contrat type; it follows the same order with the mentions its articles require.
 * Bump TEMPLATE_VERSION when a template changes: cached PDFs are keyed on it.
 */
export const TEMPLATE_VERSION = "2026-12-02.1";

const parties = `
## I. Désignation des parties

Le présent contrat est conclu entre les soussignés :

### Le bailleur

**{{lessor.name}}**{{#if (eq lessor.kind "company")}}, personne morale{{#if lessor.company_details}} ({{lessor.company_details}}){{/if}}{{else}}, personne physique{{/if}}{{#if lessor.address}}, demeurant {{lessor.address}}{{/if}}{{#if lessor.email}} — courriel : {{lessor.email}}{{/if}}.

{{#if lessor.represented_by}}Représenté par son mandataire : {{lessor.represented_by}}.{{/if}}

désigné(s) ci-après « le bailleur » ;

### Le(s) locataire(s)

{{#each tenants}}
- **{{name}}**{{#if birth_date}}, né(e) le {{longDate birth_date}}{{#if birth_place}} à {{birth_place}}{{/if}}{{/if}}{{#if company_details}} ({{company_details}}){{/if}}{{#if email}} — courriel : {{email}}{{/if}}
{{/each}}

désigné(s) ci-après « le locataire ».
`;

const object = `
## II. Objet du contrat

Le présent contrat a pour objet la location d'un logement{{#if furnished}} meublé{{/if}} ainsi déterminé :

### A. Consistance du logement

| Élément | Description |
| Adresse | {{premises.address}} |
| Régime juridique de l'immeuble | {{#if premises.legal_regime}}{{premises.legal_regime}}{{else}}—{{/if}} |
| Type | {{premises.estate_type}}{{#if premises.building}}, bâtiment {{premises.building}}{{/if}}{{#if premises.floor}}, étage {{premises.floor}}{{/if}}{{#if premises.lot_number}}, lot n° {{premises.lot_number}}{{/if}} |
| Surface habitable | {{number premises.area}} m² |
| Nombre de pièces principales | {{#if premises.rooms}}{{premises.rooms}}{{else}}—{{/if}} |
| Période de construction | {{#if premises.construction_period}}{{premises.construction_period}}{{else}}—{{/if}} |
| Modalité de production de chauffage | {{#if premises.heating}}{{premises.heating}}{{else}}—{{/if}} |
| Modalité de production d'eau chaude sanitaire | {{#if premises.hot_water}}{{premises.hot_water}}{{else}}—{{/if}} |
| Équipements du logement | {{join premises.equipment ", "}} |

### B. Destination des locaux

{{#if (eq usage "MIXED")}}Usage mixte professionnel et d'habitation.{{else}}Usage d'habitation à titre de résidence principale du locataire.{{/if}}

### C. Locaux et équipements accessoires à usage privatif

{{join premises.private_parts ", "}}

### D. Locaux, parties, équipements et accessoires à usage commun

{{join premises.common_parts ", "}}

### E. Équipements d'accès aux technologies de l'information et de la communication

{{join premises.it_access ", "}}
`;

const financial = `
## IV. Conditions financières

### A. Loyer

Montant du loyer mensuel, hors charges : **{{money rent.amount}}**.

{{#if rent.rent_control}}

Le logement est situé dans une zone où s'applique l'encadrement des loyers (loi n° 2018-1021 du 23 novembre 2018, art. 140) : loyer de référence {{money rent.rent_control.reference}} par m², loyer de référence majoré {{money rent.rent_control.increased_reference}} par m².{{#if rent.rent_control.complement}} Le loyer comprend un complément de loyer de {{money rent.rent_control.complement}} (loyer de base : {{money rent.rent_control.base_amount}}), justifié par les caractéristiques de localisation ou de confort suivantes : {{rent.rent_control.complement_justification}}.{{/if}}
{{/if}}
{{#if rent.previous_rent}}

Montant du dernier loyer acquitté par le précédent locataire : {{money rent.previous_rent.amount}}, versé le {{longDate rent.previous_rent.paid_on}}.
{{/if}}

{{#if revision}}
**Révision du loyer.** Le loyer est révisé chaque année à la date anniversaire du contrat, dans la limite de la variation de l'indice de référence des loyers (IRL) publié par l'INSEE (loi n° 89-462, art. 17-1). Trimestre de référence : **{{revision_quarter_label}}**, valeur {{number revision.reference_value}}.
{{else}}
Le loyer n'est pas révisable en cours de contrat.
{{/if}}

### B. Charges récupérables

{{#if (eq rent.charge_settlement_mode "FLAT")}}Forfait de charges mensuel : **{{money rent.charges_amount}}**, non régularisable.{{else}}Provision sur charges mensuelle : **{{money rent.charges_amount}}**, avec régularisation annuelle sur justificatifs.{{/if}}

### C. Modalités de paiement

Le loyer et les charges sont payables {{rent.term}}, selon une périodicité de paiement {{rent.frequency}}, le {{rent.payment_day}}{{#if (eq rent.payment_day 1)}}er{{/if}} {{payment_period}}, par {{rent.payment_method}}.

| Loyer hors charges | Charges | Total mensuel |
| {{money rent.amount}} | {{money rent.charges_amount}} | {{money total_monthly}} |
`;

const guarantees = `
## V. Travaux

Aucuns travaux d'amélioration n'ont été réalisés depuis la fin du dernier contrat de location, sauf mention dans les conditions particulières.

## VI. Garanties

{{deposit_text}}

{{#if guarantors.length}}
Cautionnement :

{{#each guarantors}}
- **{{name}}**{{#if address}}, demeurant {{address}}{{/if}} : {{guarantee}}{{#if max_amount}}, dans la limite de {{money max_amount}}{{/if}}
{{/each}}
{{else}}
Aucun cautionnement.
{{/if}}

## VII. Clause de solidarité

{{#if several_tenants}}Les colocataires sont tenus solidairement et indivisiblement de l'exécution des obligations du présent contrat.{{else}}Sans objet : un seul locataire.{{/if}}

## VIII. Clause résolutoire

Le contrat sera résilié de plein droit six semaines après un commandement de payer demeuré infructueux, à défaut de paiement du loyer, des charges ou du dépôt de garantie, à défaut d'assurance contre les risques locatifs, ou en cas de troubles de voisinage constatés par une décision de justice (loi n° 89-462, art. 24, dans sa rédaction issue de la loi n° 2023-668 du 27 juillet 2023).

## IX. Honoraires de location

Les honoraires éventuels sont partagés dans les limites du décret n° 2014-890 du 1er août 2014.

## X. Autres conditions particulières

{{#if special_conditions.length}}
{{#each special_conditions}}
- {{this}}
{{/each}}
{{else}}
Néant.
{{/if}}
`;

const annexes = `
## XI. Annexes

Sont annexées et jointes au contrat :

{{#if dpe}}
- Diagnostic de performance énergétique n° {{dpe.reference_number}} du {{longDate dpe.diagnosis_date}}, valable jusqu'au {{longDate dpe.valid_until}} : classe énergie **{{dpe.energy_label}}**{{#if dpe.energy_consumption}} ({{number dpe.energy_consumption}} kWh/m²/an){{/if}}, classe climat **{{dpe.ges_label}}**{{#if dpe.ges_emission}} ({{number dpe.ges_emission}} kg CO2/m²/an){{/if}}{{#if dpe.energy_cost_estimate}} ; montant estimé des dépenses annuelles d'énergie : {{dpe.energy_cost_estimate}}{{else}} ; montant estimé des dépenses annuelles d'énergie : non renseigné sur le diagnostic enregistré{{/if}}
{{else}}
- Diagnostic de performance énergétique : **non fourni**
{{/if}}
{{#each diagnostics}}
- {{type}}{{#if date}} du {{longDate date}}{{/if}}{{#if valid_until}}, valable jusqu'au {{longDate valid_until}}{{/if}}
{{/each}}
- Notice d'information relative aux droits et obligations des locataires et des bailleurs
- État des lieux d'entrée{{#if furnished}} et inventaire détaillé du mobilier{{/if}}
{{#if rent.rent_control}}
- Extrait du règlement de copropriété le cas échéant et arrêté préfectoral fixant les loyers de référence
{{/if}}
`;

const signatures = `
## Signatures

Fait{{#if signatures.place}} à {{signatures.place}}{{/if}}{{#if signatures.date}}, le {{longDate signatures.date}}{{/if}}, en {{signatures.copies}} exemplaires originaux.

| Le bailleur | Le(s) locataire(s) |{{#if guarantors.length}} La caution |{{/if}}
| {{lessor.name}} | {{tenant_names}} |{{#if guarantors.length}} {{guarantor_names}} |{{/if}}
| Signature précédée de « lu et approuvé » | Signature précédée de « lu et approuvé » |{{#if guarantors.length}} Signature |{{/if}}
`;

const furniture = `
### F. Mobilier

{{join premises.furniture ", "}} (inventaire détaillé annexé).
`;

export const partials = { parties, object, furniture, financial, guarantees, annexes, signatures };

export const templates = {
  UNFURNISHED: `
# CONTRAT DE LOCATION — LOGEMENT NU

Soumis au titre Ier de la loi n° 89-462 du 6 juillet 1989 tendant à améliorer les rapports locatifs. Contrat type : décret n° 2015-587 du 29 mai 2015, annexe 1.
{{> parties}}
{{> object}}

## III. Date de prise d'effet et durée du contrat

Prise d'effet : **{{longDate dates.start_date}}**. Durée : **{{duration_text}}** ({{#if (eq lessor.kind "company")}}six ans, le bailleur étant une personne morale{{else}}trois ans au minimum, le bailleur étant une personne physique{{/if}} : loi n° 89-462, art. 10). À défaut de congé, le contrat est reconduit tacitement.
{{> financial}}
{{> guarantees}}
{{> annexes}}
{{> signatures}}
`,
  FURNISHED: `
# CONTRAT DE LOCATION — LOGEMENT MEUBLÉ

Soumis au titre Ier bis de la loi n° 89-462 du 6 juillet 1989. Contrat type : décret n° 2015-587 du 29 mai 2015, annexe 2. Le logement est équipé du mobilier prévu par le décret n° 2015-981 du 31 juillet 2015.
{{> parties}}
{{> object}}
{{> furniture}}

## III. Date de prise d'effet et durée du contrat

Prise d'effet : **{{longDate dates.start_date}}**. Durée : **{{duration_text}}** (un an au minimum, neuf mois pour un étudiant sans reconduction : loi n° 89-462, art. 25-7).
{{> financial}}
{{> guarantees}}
{{> annexes}}
{{> signatures}}
`,
  STUDENT: `
# CONTRAT DE LOCATION — LOGEMENT MEUBLÉ LOUÉ À UN ÉTUDIANT

Soumis au titre Ier bis de la loi n° 89-462 du 6 juillet 1989. Contrat type : décret n° 2015-587 du 29 mai 2015, annexe 2. Le logement est équipé du mobilier prévu par le décret n° 2015-981 du 31 juillet 2015.
{{> parties}}
{{> object}}
{{> furniture}}

## III. Date de prise d'effet et durée du contrat

Prise d'effet : **{{longDate dates.start_date}}**. Durée : **{{duration_text}}**. Le locataire étant étudiant, la durée du bail peut être réduite à neuf mois : le contrat n'est alors pas reconduit tacitement et prend fin à son terme (loi n° 89-462, art. 25-7).
{{> financial}}
{{> guarantees}}
{{> annexes}}
{{> signatures}}
`,
  MOBILITY: `
# BAIL MOBILITÉ — LOGEMENT MEUBLÉ

Soumis au titre Ier ter de la loi n° 89-462 du 6 juillet 1989 (art. 25-12 et suivants), créé par la loi n° 2018-1021 du 23 novembre 2018.

**Le présent contrat est un bail mobilité** : il ne peut être renouvelé ni reconduit ; aucun dépôt de garantie ne peut être exigé.
{{> parties}}

### Motif du bail mobilité

Le locataire justifie, à la date de prise d'effet, de : **{{mobility_reason}}**.
{{> object}}

### F. Mobilier

{{join premises.furniture ", "}} (inventaire détaillé annexé).

## III. Date de prise d'effet et durée du contrat

Prise d'effet : **{{longDate dates.start_date}}**. Durée : **{{duration_text}}**, fin le {{longDate dates.end_date}} (entre un et dix mois, non renouvelable ; une seule modification de durée par avenant dans la limite de dix mois au total : loi n° 89-462, art. 25-14).
{{> financial}}
{{> guarantees}}
{{> annexes}}
{{> signatures}}
`,
} as const;
