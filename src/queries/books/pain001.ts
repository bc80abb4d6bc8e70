import { XMLBuilder } from "fast-xml-parser";

/**
 * A SEPA credit transfer initiation, ISO 20022 `pain.001.001.09` (EPC SEPA Credit Transfer
 * rulebook): one payment information block debiting the agency's account, one transaction per
 * owner paid. Pure: the same payout gives the same file.
 */

export interface CreditTransferFile {
  message_id: string;
  created_at: string;
  execution_date: string;
  debtor: { name: string; iban: string; bic: string | null };
  transfers: {
    end_to_end_id: string;
    amount: number;
    creditor: { name: string; iban: string; bic: string | null };
    remittance: string;
  }[];
}

/** SEPA's Latin character set (EPC217-08): what a bank accepts in a name or a remittance text. */
export const sepaText = (s: string, max: number) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9/?:().,'+ -]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max) || "NOTPROVIDED";

const amountText = (cents: number) => (cents / 100).toFixed(2);
const agent = (bic: string | null) => ({
  FinInstnId: bic ? { BICFI: bic } : { Othr: { Id: "NOTPROVIDED" } },
});

export function pain001(f: CreditTransferFile): string {
  const cents = f.transfers.map((t) => Math.round(t.amount * 100));
  const total = amountText(cents.reduce((s, c) => s + c, 0));
  const doc = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    Document: {
      "@_xmlns": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09",
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: f.message_id,
          CreDtTm: f.created_at.replace(/\.\d+Z$/, "Z"),
          NbOfTxs: String(f.transfers.length),
          CtrlSum: total,
          InitgPty: { Nm: sepaText(f.debtor.name, 70) },
        },
        PmtInf: {
          PmtInfId: f.message_id,
          PmtMtd: "TRF",
          BtchBookg: "true",
          NbOfTxs: String(f.transfers.length),
          CtrlSum: total,
          PmtTpInf: { SvcLvl: { Cd: "SEPA" } },
          ReqdExctnDt: { Dt: f.execution_date },
          Dbtr: { Nm: sepaText(f.debtor.name, 70) },
          DbtrAcct: { Id: { IBAN: f.debtor.iban } },
          DbtrAgt: agent(f.debtor.bic),
          ChrgBr: "SLEV",
          CdtTrfTxInf: f.transfers.map((t, i) => ({
            PmtId: { EndToEndId: t.end_to_end_id },
            Amt: { InstdAmt: { "@_Ccy": "EUR", "#text": amountText(cents[i]) } },
            ...(t.creditor.bic ? { CdtrAgt: agent(t.creditor.bic) } : {}),
            Cdtr: { Nm: sepaText(t.creditor.name, 70) },
            CdtrAcct: { Id: { IBAN: t.creditor.iban } },
            RmtInf: { Ustrd: sepaText(t.remittance, 140) },
          })),
        },
      },
    },
  };
  const builder = new XMLBuilder({ ignoreAttributes: false, format: true, suppressEmptyNode: true });
  return builder.build(doc);
}
