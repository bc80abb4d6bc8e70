import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { frenchAmount } from "../../../src/commands/bank/parsers/csv.ts";
import { detectFormat, parseStatement } from "../../../src/commands/bank/parsers/index.ts";
import { sgmlToXml } from "../../../src/commands/bank/parsers/ofx.ts";
import { ApiError } from "../../../src/platform/errors.ts";

/** The statement parsers on the samples of test/fixtures/bank (shaped like French banks' exports). */
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/bank/${name}`, import.meta.url));
const mapping = { date: "Date", label: "Libellé", debit: "Débit", credit: "Crédit", reference: "Référence" };

describe("statement parsers", () => {
  it("camt.053: booked entries only, credits positive and debits negative, debtor name, IBAN and RF reference", () => {
    const { format, lines } = parseStatement(fixture("camt053-bnp.xml"), undefined, null);
    expect(format).toBe("CAMT053");
    expect(lines.map((l) => [l.booked_on, l.amount, l.entry_ref])).toEqual([
      ["2025-01-06", 850, "2501060001"],
      ["2025-01-07", 850, "2501070003"],
      ["2025-01-31", -12.5, "2501310099"],
      ["2025-02-05", 850, "2502050007"],
    ]);
    expect(lines[0]).toMatchObject({
      counterparty_name: "MME DUPONT MARIE",
      counterparty_iban: "FR1420041010050500013M02606",
      reference: "@@RF:dupont-2025-01@@",
    });
    expect(lines[3]).toMatchObject({
      reference: "DUPONT-LOYER-0225",
      label: "VIR SEPA RECU /DE MME DUPONT MARIE LOYER FEVRIER",
    });
  });

  it("camt.054 of version 001.08: the party's name under Pty", () => {
    const { format, lines } = parseStatement(fixture("camt054-sg.xml"), undefined, null);
    expect(format).toBe("CAMT054");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      booked_on: "2025-03-05",
      amount: 850,
      counterparty_name: "DUPONT MARIE",
    });
  });

  it("OFX 1 (SGML, leaves unclosed, a bare ampersand) and OFX 2 (XML) give the same line for the same FITID", () => {
    const one = parseStatement(fixture("ofx1-credit-agricole.ofx"), undefined, null);
    const two = parseStatement(fixture("ofx2-boursorama.ofx"), "OFX", null);
    expect(one.format).toBe("OFX");
    expect(one.lines.map((l) => [l.booked_on, l.amount, l.entry_ref])).toEqual([
      ["2025-03-06", 400, "CA20250306-0001"],
      ["2025-03-07", -35, "CA20250307-0002"],
    ]);
    expect(two.lines[0]).toEqual(one.lines[0]);
    expect(one.lines[0].label).toBe("VIR JEAN MOREAU LOYER MARS PARTIEL & SOLDE");
    expect(sgmlToXml("<OFX><A>1<B>x</B></OFX>")).toBe("<OFX><A>1</A><B>x</B></OFX>");
  });

  it("CSV in Windows-1252: preamble skipped, dd/mm/yyyy, 1 234,56, debit and credit columns, quoted ;", () => {
    const { lines } = parseStatement(fixture("csv-societe-generale.csv"), "CSV", mapping);
    expect(lines.map((l) => [l.booked_on, l.amount, l.label])).toEqual([
      ["2025-03-13", 1234.56, "REMISE CHEQUE N° 4512 LOCATAIRE"],
      ["2025-03-14", 850, "VIR M JEAN MOREAU LOYER MARS"],
      ["2025-03-14", -8, "COMMISSION INTERVENTION"],
      ["2025-03-14", -8, "COMMISSION INTERVENTION"],
      ["2025-03-15", 12.34, "VIR SEPA DUPONT; MARIE"],
    ]);
    expect(frenchAmount("1 234,56")).toBe(1234.56);
    expect(frenchAmount("-1.234,56 €")).toBe(-1234.56);
    expect(frenchAmount("1234.56", ".")).toBe(1234.56);
  });

  it("detects the format; a broken file, a wrong format or a CSV without mapping is a 400 on file", () => {
    expect(detectFormat("Date;Libellé")).toBe("CSV");
    const refused = (bytes: string, format?: "CAMT053" | "CAMT054" | "OFX" | "CSV") => {
      try {
        parseStatement(Buffer.from(bytes), format, null);
      } catch (error) {
        return error instanceof ApiError ? [error.status, error.details?.[0]?.field] : error;
      }
      return "accepted";
    };
    expect(refused("<Document><BkToCstmrStmt><Stmt><Ntry>")).toEqual([400, "file"]);
    expect(refused(fixture("camt054-sg.xml").toString(), "CAMT053")).toEqual([400, "file"]);
    expect(refused("Date;Libellé\n01/01/2025;x")).toEqual([400, "file"]);
    expect(refused("<OFX><BANKMSGSRSV1></BANKMSGSRSV1></OFX>")).toEqual([400, "file"]);
  });
});
