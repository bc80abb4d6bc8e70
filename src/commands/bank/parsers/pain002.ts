import { validationError } from "../../../platform/errors.ts";
import type { StatusReport } from "../collectionDecider.ts";
import { at, listAt, parseXml, textAt } from "./xml.ts";

/**
 * A pain.002 customer payment status report (any version from 001.03 on; French banks send
 * 001.10 over EBICS for pain.008 files): the original message, the file's and each PmtInf's
 * status, each transaction's status (RJCT a reject) with its ISO reason code (AC04, AM04, MD06,
 * MS02...). A file that cannot be read is a 400 on `file`.
 */
const reasonOf = (node: unknown): string | null =>
  listAt(node, "StsRsnInf")
    .map((s) => textAt(s, "Rsn", "Cd") ?? textAt(s, "Rsn", "Prtry"))
    .find((r) => r !== null) ?? null;

export function parseStatusReport(bytes: Buffer): StatusReport {
  try {
    const doc = parseXml(bytes.toString("utf8"));
    const report = at(doc, "Document", "CstmrPmtStsRpt");
    if (!report || typeof report !== "object") throw new Error("Not a pain.002 (no CstmrPmtStsRpt)");
    const group = at(report, "OrgnlGrpInfAndSts");
    const message_id = textAt(report, "GrpHdr", "MsgId");
    const original_message_id = textAt(group, "OrgnlMsgId");
    if (!message_id || !original_message_id)
      throw new Error("No GrpHdr/MsgId or OrgnlGrpInfAndSts/OrgnlMsgId");
    return {
      message_id,
      original_message_id,
      group_status: textAt(group, "GrpSts"),
      group_reason: reasonOf(group),
      payments: listAt(report, "OrgnlPmtInfAndSts").map((p) => ({
        original_id: textAt(p, "OrgnlPmtInfId"),
        status: textAt(p, "PmtInfSts"),
        reason: reasonOf(p),
        transactions: listAt(p, "TxInfAndSts").map((t) => {
          const end_to_end_id = textAt(t, "OrgnlEndToEndId");
          if (!end_to_end_id) throw new Error("A TxInfAndSts has no OrgnlEndToEndId");
          return { end_to_end_id, status: textAt(t, "TxSts"), reason: reasonOf(t) };
        }),
      })),
    };
  } catch (error) {
    throw validationError("Invalid status report", [
      { field: "file", message: `pain.002: ${(error as Error).message}`.slice(0, 500) },
    ]);
  }
}
