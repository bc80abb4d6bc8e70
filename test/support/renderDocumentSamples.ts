/**
 * Renders every document of docs/documents.md from sample data and writes the picture of its first
 * page to docs/images/ (needs pdftoppm from poppler-utils): `npx tsx test/support/renderDocumentSamples.ts`.
 * The PDFs go to /tmp/pms-documents/ to look at every page.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { guaranteeActMarkup } from "../../src/commands/leases/contract/guaranteeAct.ts";
import { renderLeaseContractHere } from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { type evidenceOf, signedMarkup } from "../../src/commands/signing/process.ts";
import { DECRET_87_713 } from "../../src/law/charges.ts";
import { renderMarkupHere } from "../../src/platform/pdf/renderMarkup.ts";
import { statementMarkup } from "../../src/queries/charges.ts";
import { type ConditionReport, conditionReportMarkup } from "../../src/queries/conditionReports.ts";
import {
  callView,
  documentMarkup,
  documentView,
  type LetterFacts,
  NO_DIRECT_DEBIT,
} from "../../src/queries/rentDocuments.ts";
import { NOTICE_MARKUP } from "../../src/queries/signing.ts";
import { sampleContract } from "./leaseContractSample.ts";
import { sampleLetterFacts } from "./letterFactsSample.ts";

const images = new URL("../../docs/images/", import.meta.url).pathname;
const out = "/tmp/pms-documents/";
mkdirSync(images, { recursive: true });
mkdirSync(out, { recursive: true });

const hash = (c: string) => c.repeat(64);
const evidence = {
  document: {
    sha256: hash("a"),
    contract: { pdf_id: "", sha256: hash("b"), filename: "bail-logement-nu-2026-12-01-3f2a1c0e.pdf" },
    annexes: [
      { annex_id: "1", code: "NOTICE_INFORMATION", title: "Notice d'information", sha256: hash("c") },
      { annex_id: "2", code: "DPE", title: "Diagnostic de performance énergétique", sha256: hash("d") },
      { annex_id: "3", code: "ERP", title: "État des risques et pollutions", sha256: hash("e") },
    ],
  },
  signatories: [
    { signatory_id: "s1", role: "Primary", lessee_id: "l1", name: "Camille Martin" },
    { signatory_id: "s2", role: "Guarantor", lessee_id: "l2", name: "Jeanne Martin" },
    { signatory_id: "s3", role: "Lessor", lessee_id: null, name: "SCI Dupont" },
  ],
  steps: [
    {
      step: "SIGNED",
      signatory_id: "s1",
      at: "2026-12-01T21:52:00Z",
      channel: "lessee_space",
      ip: "2001:db8:85a3::8a2e:370:7334",
    },
    {
      step: "SIGNED",
      signatory_id: "s2",
      at: "2026-12-01T22:01:00Z",
      channel: "lessee_space",
      ip: "192.0.2.10",
    },
    { step: "SIGNED", signatory_id: "s3", at: "2026-12-02T08:15:00Z", channel: "api", ip: "198.51.100.7" },
  ],
} as unknown as ReturnType<typeof evidenceOf>;

const letterFacts: LetterFacts = { ...sampleLetterFacts, estate: { address: "4 rue Mercière, 69002 Lyon" } };
const paidCall = callView({
  call_id: "",
  period_start: "2026-12-01",
  period_end: "2026-12-31",
  due_date: "2026-12-05",
  rent_amount: 800,
  charges_amount: 50,
  total_amount: 850,
  paid_amount: 850,
});

const documents: Record<string, () => Promise<Buffer>> = {
  quittance: () =>
    renderMarkupHere({
      markup: documentMarkup(
        "quittance",
        null,
        documentView(letterFacts, {
          call: { ...paidCall, remaining_amount: 0 },
          receipt: { number: "Q-2026-000007", issued_on: "2026-12-06" },
        }),
      ),
      title: "Quittance de loyer",
    }),
  "avis-echeance": () =>
    renderMarkupHere({
      markup: documentMarkup(
        "avis",
        null,
        documentView(letterFacts, {
          call: { ...paidCall, paid_amount: 0, remaining_amount: paidCall.total_amount },
          sender: { name: "SCI Les Tilleuls", email: "gestion@example.fr" },
          // The ISO 11649 standard's own example of an RF creditor reference.
          payment: {
            iban: "FR14 2004 1010 0505 0001 3M02 606",
            bic: "BNPAFRPP",
            reference: "RF18539007547034",
            direct_debit: NO_DIRECT_DEBIT,
          },
        }),
      ),
      title: "Avis d'échéance",
    }),
  "avis-echeance-prelevement": () =>
    renderMarkupHere({
      markup: documentMarkup(
        "avis",
        null,
        documentView(letterFacts, {
          call: { ...paidCall, paid_amount: 0, remaining_amount: paidCall.total_amount },
          sender: { name: "SCI Les Tilleuls", email: "gestion@example.fr" },
          payment: {
            iban: "FR14 2004 1010 0505 0001 3M02 606",
            bic: "BNPAFRPP",
            reference: "RF18539007547034",
            direct_debit: {
              amount: paidCall.total_amount,
              date: paidCall.due_date,
              creditor_id: "FR72ZZZ123456",
              rum: "PMS-6B0C6F4E8A8E4A579D3E4BB5C8D1A01",
            },
          },
        }),
      ),
      title: "Avis d'échéance",
    }),
  "arrears-statement": () =>
    renderMarkupHere({
      markup: documentMarkup(
        "arrears-statement",
        null,
        documentView(letterFacts, {
          arrears: {
            total: 2400,
            as_of: "2026-12-02",
            periods: [
              {
                period_start: "2026-09-15",
                period_end: "2026-09-15",
                due_date: "2026-09-15",
                rent_amount: 700,
                charges_amount: 0,
                total_amount: 700,
                paid_amount: 0,
                remaining_amount: 700,
                days_late: 78,
                opening: true,
              },
              ...["2026-10", "2026-11"].map((month, i) => ({
                period_start: `${month}-01`,
                period_end: `${month}-${i === 0 ? "31" : "30"}`,
                due_date: `${month}-05`,
                rent_amount: 800,
                charges_amount: 50,
                total_amount: 850,
                paid_amount: 0,
                remaining_amount: 850,
                days_late: i === 0 ? 58 : 27,
              })),
            ],
            monthly_rent: 800,
            monthly_charges: 50,
            payment_delay: "six semaines",
            clause_effective_from: "2027-01-14",
            required_mentions: [
              "le délai dont dispose le locataire pour payer sa dette",
              "le montant mensuel du loyer et des charges",
              "le décompte de la dette",
            ],
          },
          sender: { name: "SCI Les Tilleuls", email: "gestion@example.fr" },
        }),
      ),
      title: "Décompte des sommes dues",
    }),
  "contract-unfurnished": () => renderLeaseContractHere(sampleContract("UNFURNISHED")),
  "contract-furnished": () => renderLeaseContractHere(sampleContract("FURNISHED")),
  "contract-student": () => renderLeaseContractHere(sampleContract("STUDENT")),
  "contract-mobility": () => renderLeaseContractHere(sampleContract("MOBILITY")),
  "signature-certificate": () =>
    renderMarkupHere({
      markup: signedMarkup(evidence, "2026-12-02T08:15:03Z", {
        address: "12 rue des Lilas, 69003 Lyon, France",
      }),
      title: "Certificat de signature électronique",
    }),
  "guarantee-act": () => {
    const contract = sampleContract("UNFURNISHED");
    return renderMarkupHere({
      markup: guaranteeActMarkup(contract, contract.guarantors[0]),
      title: "Acte de cautionnement solidaire",
    });
  },
  "condition-report-entry": () =>
    renderMarkupHere({
      markup: conditionReportMarkup(
        {
          type: "ENTRY",
          date: "2026-12-01",
          signed_on: "2026-12-01",
          rooms: [
            {
              name: "Séjour",
              elements: [
                { element: "Sol", condition: "GOOD", comment: "Parquet vitrifié", media_ids: ["m1", "m2"] },
                { element: "Murs", condition: "NEW", comment: "Peinture récente", media_ids: [] },
                { element: "Plafond", condition: "FAIR", comment: null, media_ids: [] },
              ],
            },
            {
              name: "Cuisine",
              elements: [{ element: "Four", condition: "GOOD", comment: null, media_ids: [] }],
            },
          ],
          meter_readings: [
            { meter_id: null, kind: "ELECTRICITY", value: 12034.5 },
            { meter_id: null, kind: "WATER_COLD", value: 431 },
          ],
          keys: [
            { kind: "Porte d'entrée", count: 2 },
            { kind: "Boîte aux lettres", count: 1 },
          ],
          completions: [],
        } as unknown as ConditionReport,
        {
          address: "12 rue des Lilas, 69003 Lyon, France",
          lessor: { name: "SCI Dupont", address: "4 place Bellecour, 69002 Lyon" },
          tenants: [{ name: "Camille Martin", address: null }],
        },
      ),
      title: "État des lieux d'entrée",
    }),
  "notice-information": () => renderMarkupHere({ markup: NOTICE_MARKUP, title: "Notice d'information" }),
  "charges-statement": () =>
    renderMarkupHere({
      markup: statementMarkup(
        {
          period: { from: "2025-01-01", to: "2025-12-31" },
          days_occupied: 365,
          days_of_period: 365,
          regularised_on: "2026-12-01",
          lines: [
            {
              heading: "I. Ascenseurs et monte-charge",
              key_name: "Tantièmes généraux",
              key_kind: "TANTIEMES",
              share: 333,
              total_shares: 1000,
              place_amount: 1000.01,
              lease_amount: 333,
            },
            {
              heading: "IV. Parties communes intérieures",
              key_name: "Lots",
              key_kind: "EQUAL",
              share: 1,
              total_shares: 3,
              place_amount: 900,
              lease_amount: 300,
            },
          ],
          excluded: [
            {
              label: "Gros travaux",
              amount: 99.99,
              reason: "",
              legal_reference: DECRET_87_713,
            },
          ],
          instalments: { allowed: false, deadline: "2026-12-31", schedule: [] },
          recoverable_total: 1900.01,
          lease_amount: 633,
          provisions_called: 600,
          balance: 33,
        } as unknown as Parameters<typeof statementMarkup>[0],
        {
          address: "12 rue des Lilas, 69003 Lyon, France",
          landlord: "SCI Dupont",
          tenants: "Camille Martin",
          payable_on: "2027-01-01",
        },
      ),
      title: "Régularisation des charges",
    }),
};

// `ONLY=a,b`: those documents only.
const only = process.env.ONLY?.split(",");
for (const [name, render] of Object.entries(documents).filter(([n]) => !only || only.includes(n))) {
  const pdf = await render();
  writeFileSync(`${out}${name}.pdf`, pdf);
  execFileSync("pdftoppm", ["-png", "-r", "60", `${out}${name}.pdf`, `${out}${name}`]);
  execFileSync("pdftoppm", [
    "-png",
    "-r",
    "60",
    "-f",
    "1",
    "-l",
    "1",
    "-singlefile",
    `${out}${name}.pdf`,
    `${images}${name}`,
  ]);
  console.log(`${images}${name}.png`);
}
