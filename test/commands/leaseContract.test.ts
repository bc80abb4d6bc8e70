import { describe, expect, it } from "vitest";
import type { ContractLeaseType } from "../../src/commands/leases/contract/leaseContract.ts";
import {
  contractFileName,
  contractMarkup,
  durationText,
  quarterLabel,
  renderLeaseContract,
} from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { sampleContract } from "../support/leaseContractSample.ts";
import { pdfText } from "../support/pdfText.ts";

/** Mentions every variant prints, from the sample's data (docs/documents.md, "Lease contract"). */
const CONTRACT_MENTIONS = [
  "Régime juridique de l'immeuble copropriété",
  "Période de construction 1946-1970",
  "Surface habitable 48,6 m²",
  "Nombre de pièces principales 2",
  "Modalité de production de chauffage individuel, gaz",
  "Modalité de production d'eau chaude sanitaire individuelle, gaz",
  "cuisine équipée, salle d'eau avec douche",
  "cave n° 14, place de stationnement n° 7",
  "ascenseur, local vélos, interphone",
  "raccordement fibre optique",
  "payables à terme échu, selon une périodicité de paiement mensuel, le 5 de chaque mois",
  "montant estimé des dépenses annuelles d'énergie",
  "Fait à Lyon, le",
];

describe.each(["UNFURNISHED", "FURNISHED", "STUDENT", "MOBILITY"] as ContractLeaseType[])(
  "lease contract %s",
  (type) => {
    const contract = sampleContract(type);

    it("renders a PDF whose text names the parties, the rent, the deposit and the index quarter", async () => {
      const pdf = await renderLeaseContract(contract);
      expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
      const text = await pdfText(pdf);
      expect(text).toContain("Hélène Marchand");
      for (const tenant of contract.tenants) expect(text).toContain(tenant.name);
      for (const guarantor of contract.guarantors) expect(text).toContain(guarantor.name);
      expect(text).toContain("Montant du loyer mensuel, hors charges : 912,40 €");
      expect(text).toContain("997,40 €"); // rent + charges
      expect(text).toContain("27 avenue Jean Jaurès, 69007 Lyon");
      expect(text).toMatch(/classe énergie D .* classe climat C/);
      expect(text).toContain("valable jusqu'au 17 avril 2033");
      // The mandatory mentions of the contrat type (décret n° 2015-587, docs/documents.md).
      for (const mention of CONTRACT_MENTIONS) expect(text, mention).toContain(mention);
      // No raw code or id where a person reads.
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}|2025-Q2|TERME_|MONTHLY|COPROPRIETE/);
      if (type === "UNFURNISHED") {
        expect(text).toContain("CONTRAT DE LOCATION — LOGEMENT NU");
        expect(text).toContain(
          "Dépôt de garantie : 912,40 €, au plus un mois de loyer hors charges (loi n° 89-462, art. 22)",
        );
        expect(text).toContain("Trimestre de référence : 2e trimestre 2025, valeur 146,68");
        expect(text).toContain("Durée : 3 ans");
        expect(text).toContain("décret n° 2015-587 du 29 mai 2015, annexe 1");
      } else if (type === "STUDENT") {
        expect(text).toContain("LOGEMENT MEUBLÉ LOUÉ À UN ÉTUDIANT");
        expect(text).toMatch(/Durée : 9 mois ?\. Le locataire étant étudiant/);
        expect(text).toContain("n'est alors pas reconduit tacitement");
        expect(text).toContain("au plus deux mois de loyer hors charges (loi n° 89-462, art. 25-6)");
        expect(text).toContain("décret n° 2015-587 du 29 mai 2015, annexe 2");
      } else if (type === "FURNISHED") {
        expect(text).toContain("LOGEMENT MEUBLÉ");
        expect(text).toContain(
          "Dépôt de garantie : 1 824,80 €, au plus deux mois de loyer hors charges (loi n° 89-462, art. 25-6)",
        );
        expect(text).toContain("2e trimestre 2025");
        expect(text).toContain("réfrigérateur avec congélateur");
        expect(text).toContain("Forfait de charges mensuel : 85,00 €");
      } else {
        expect(text).toContain("BAIL MOBILITÉ");
        expect(text).toContain("Aucun dépôt de garantie n'est exigé (loi n° 89-462, art. 25-13)");
        expect(text).toContain("Le loyer n'est pas révisable");
        expect(text).toContain("une mission temporaire");
        expect(text).toMatch(/Durée : 8 mois ?, fin le 30 avril 2026/);
      }
    });

    it("has every section of the contrat type, in order", () => {
      const markup = contractMarkup(contract);
      const sections = [...markup.matchAll(/^## (.+)$/gm)].map((m) => m[1].split(".")[0]);
      expect(sections).toEqual([
        "I",
        "II",
        "III",
        "IV",
        "V",
        "VI",
        "VII",
        "VIII",
        "IX",
        "X",
        "XI",
        "Signatures",
      ]);
    });
  },
);

describe("lease contract", () => {
  it("a lease type without a template is a 422 naming it", () => {
    const contract = { ...sampleContract("UNFURNISHED"), lease_type: "COMMERCIAL" as ContractLeaseType };
    try {
      contractMarkup(contract);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).message).toBe("No contract template for lease type COMMERCIAL");
    }
  });

  it("says so when the DPE is missing, and a company lessor gets six years", async () => {
    const contract = {
      ...sampleContract("UNFURNISHED"),
      dpe: null,
      dates: { start_date: "2025-09-01", end_date: null, duration_months: 72 },
    };
    contract.lessor = {
      ...contract.lessor,
      kind: "company",
      name: "SCI Les Tilleuls",
      company_details: "SCI, SIREN 812 345 678",
    };
    const text = await pdfText(await renderLeaseContract(contract));
    expect(text).toContain("Diagnostic de performance énergétique : non fourni");
    expect(text).toContain("Durée : 6 ans (six ans, le bailleur étant une personne morale");
    expect(text).toContain("SCI Les Tilleuls");
  });

  it("states a complément de loyer with the base rent and what justifies it (décret 2015-587; ELAN art. 140)", async () => {
    const sample = sampleContract("UNFURNISHED");
    const contract = {
      ...sample,
      rent: {
        ...sample.rent,
        rent_control: {
          reference: 15.2,
          increased_reference: 18.24,
          complement: 60,
          complement_justification: "terrasse de 30 m² exposée plein sud",
          base_amount: 852.4,
        },
      },
    };
    const text = (await pdfText(await renderLeaseContract(contract))).replace(/\s+/g, " ");
    expect(text).toContain("complément de loyer de 60,00 €");
    expect(text).toContain("loyer de base : 852,40 €");
    expect(text).toContain("terrasse de 30 m² exposée plein sud");
    const without = (await pdfText(await renderLeaseContract(sample))).replace(/\s+/g, " ");
    expect(without).not.toContain("complément de loyer");
  });

  it("formats quarters, durations and file names", () => {
    expect(quarterLabel("2025-Q1")).toBe("1er trimestre 2025");
    expect(quarterLabel("2025-Q4")).toBe("4e trimestre 2025");
    expect([1, 8, 12, 24, 36].map(durationText)).toEqual(["1 mois", "8 mois", "1 an", "2 ans", "3 ans"]);
    expect(contractFileName(sampleContract("FURNISHED"))).toBe("bail-meuble-2025-09-01-3f2a1c0e.pdf");
  });

  it("renders the same text when documents share the parsed fonts, also concurrently", async () => {
    const types: ContractLeaseType[] = ["UNFURNISHED", "FURNISHED", "MOBILITY"];
    const alone: string[] = [];
    for (const type of types) alone.push(await pdfText(await renderLeaseContract(sampleContract(type))));
    const together = await Promise.all(
      [...types, ...types].map(async (type) => pdfText(await renderLeaseContract(sampleContract(type)))),
    );
    expect(together).toEqual([...alone, ...alone]);
  });
});
