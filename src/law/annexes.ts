import { addMonths, addYears } from "./calendar.ts";
import { dpeValidUntil } from "./dpe.ts";
import { furnished, type LeaseType, underLoi89 } from "./leaseTypes.ts";
import { LOI_89, type Verdict, verdict } from "./verdict.ts";

/**
 * The annexes a residential lease must carry when it is signed (docs/signing.md, "Annexes"), judged
 * on the signing date. Each rule answers a verdict: PASS (attached and valid), FAIL (missing or
 * expired; `details.problem`), NOT_APPLICABLE (the lease or the building does not call for it),
 * UNKNOWN (a fact the rule needs is not recorded: not counted as missing, listed for the user).
 *
 * Two kinds are never a reason to refuse the signing:
 *   - the asbestos file (DAPP): art. 3-3 3° names « une copie d'un état mentionnant l'absence ou, le
 *     cas échéant, la présence de matériaux ou produits de la construction contenant de l'amiante »
 *     « dans des conditions fixées par décret », and no such décret was ever published: the text is
 *     not applicable, the document stays optional (NOT_APPLICABLE, PASS when attached);
 *   - the entry condition report (art. 3-2: « établi lors de la remise des clés ») and the furnished
 *     inventory (art. 25-5: « établis dans les mêmes formes et en autant d'exemplaires que de
 *     parties lors de la remise des clés »): drawn up at key handover, after the signing. They are
 *     listed as due then (`due_at_handover`); the lease's compliance fails once the lease is
 *     under way without them (`handoverDocumentsVerdict`).
 */

export const ANNEX_CODES = [
  "NOTICE_INFORMATION",
  "DPE",
  "ERP",
  "CREP",
  "ELECTRICITY",
  "GAS",
  "ASBESTOS_DAPP",
  "COPROPERTY_EXTRACTS",
  "ENTRY_CONDITION_REPORT",
  "INVENTORY",
  "OTHER",
] as const;
export type AnnexCode = (typeof ANNEX_CODES)[number];

/** The legal reference of each catalog entry (the migration's catalog says the same). */
export const ANNEX_LEGAL_REFERENCES: Record<AnnexCode, string> = {
  NOTICE_INFORMATION: `${LOI_89} art. 3; arrêté du 29 mai 2015 (notice d'information)`,
  DPE: `${LOI_89} art. 3-3 1°; code de la construction et de l'habitation art. L126-26 (10 ans)`,
  ERP: `${LOI_89} art. 3-3; code de l'environnement art. L125-5 (moins de six mois)`,
  CREP: `${LOI_89} art. 3-3 2°; code de la santé publique art. L1334-5 et L1334-7 (6 ans; sans limite s'il est négatif)`,
  ELECTRICITY: `${LOI_89} art. 3-3 4°; décret n° 2016-1105 du 11 août 2016 (installation de plus de 15 ans, 6 ans)`,
  GAS: `${LOI_89} art. 3-3 4°; décret n° 2016-1104 du 11 août 2016 (installation de plus de 15 ans, 6 ans)`,
  ASBESTOS_DAPP: `${LOI_89} art. 3-3 3° (sans décret d'application : document facultatif); code de la santé publique art. R1334-29-4 (permis de construire antérieur au 1er juillet 1997)`,
  COPROPERTY_EXTRACTS: `${LOI_89} art. 3 (extraits du règlement de copropriété)`,
  ENTRY_CONDITION_REPORT: `${LOI_89} art. 3-2 (état des lieux d'entrée)`,
  INVENTORY: `${LOI_89} art. 25-5 (inventaire et état détaillé du mobilier)`,
  OTHER: `${LOI_89} art. 3`,
};

/** An annex attached to the lease, as the rules need it. */
export interface AttachedAnnex {
  code: AnnexCode;
  /** The day the diagnostic or document was made; null when not given. */
  document_date: string | null;
  /** The end of validity the document itself states (a DPE's certificate); null when none. */
  valid_until: string | null;
  /** A CREP finding no lead above the threshold (code de la santé publique art. L1334-7). */
  negative: boolean | null;
}

export interface AnnexFacts {
  signing_date: string;
  lease_type: LeaseType;
  /** The building's construction (or permit) date; null when not recorded. */
  construction_date: string | null;
  /** The date of the electricity and gas installations (their renovation, else the construction). */
  installation_date: string | null;
  /** Whether the dwelling has a gas installation; null when not recorded. */
  has_gas_installation: boolean | null;
  /** Whether the building is a copropriété; null when not recorded. */
  in_copropriete: boolean | null;
  attached: readonly AttachedAnnex[];
}

/** Built before 1949: a CREP (code de la santé publique art. L1334-5). */
export const LEAD_BUILT_BEFORE = "1949-01-01";
/** A permit before 1997-07-01: the asbestos file (code de la santé publique art. R1334-29-4). */
export const ASBESTOS_PERMIT_BEFORE = "1997-07-01";
/** Electricity and gas reports for installations over 15 years old (décrets n° 2016-1104/1105). */
export const INSTALLATION_AGE_YEARS = 15;
export const INSTALLATION_REPORT_YEARS = 6;
export const CREP_YEARS = 6;
export const ERP_MONTHS = 6;

type Requirement =
  | { required: true }
  | { required: false }
  | { required: null; why: string }
  | { required: "optional"; why: string }
  | { required: "at_handover" };
const yes: Requirement = { required: true };
const no: Requirement = { required: false };
const unknown = (why: string): Requirement => ({ required: null, why });

/** Whether the lease calls for the annex on the facts. */
function requirement(code: AnnexCode, f: AnnexFacts): Requirement {
  switch (code) {
    case "NOTICE_INFORMATION":
    case "DPE":
    case "ERP":
      return yes;
    case "ENTRY_CONDITION_REPORT":
      return { required: "at_handover" };
    case "CREP":
      if (f.construction_date === null) return unknown("the building's construction date is not recorded");
      return f.construction_date < LEAD_BUILT_BEFORE ? yes : no;
    case "ASBESTOS_DAPP":
      return {
        required: "optional",
        why: "art. 3-3 3° has no application décret: an optional document, never required to sign",
      };
    case "ELECTRICITY":
    case "GAS": {
      if (code === "GAS" && f.has_gas_installation === false) return no;
      if (f.installation_date === null) return unknown("the installation's date is not recorded");
      const old = addYears(f.installation_date, INSTALLATION_AGE_YEARS) < f.signing_date;
      if (!old) return no;
      if (code === "GAS" && f.has_gas_installation === null)
        return unknown("whether the dwelling has a gas installation is not recorded");
      return yes;
    }
    case "COPROPERTY_EXTRACTS":
      if (f.in_copropriete === null) return unknown("whether the building is a copropriété is not recorded");
      return f.in_copropriete ? yes : no;
    case "INVENTORY":
      return furnished(f.lease_type) ? { required: "at_handover" } : no;
    case "OTHER":
      return no;
    default: {
      const _exhaustive: never = code;
      return _exhaustive;
    }
  }
}

/** The last day a document is valid on (null: no end), or undefined when its date is needed and absent. */
export function validUntil(annex: AttachedAnnex): string | null | undefined {
  const made = annex.document_date;
  switch (annex.code) {
    case "DPE":
      if (made === null) return annex.valid_until ?? undefined;
      return dpeValidUntil(made, annex.valid_until);
    case "ERP":
      // "Moins de six mois" before the signing: the day before six months have passed.
      return made === null ? undefined : dayBefore(addMonths(made, ERP_MONTHS));
    case "CREP":
      if (annex.negative === true) return null;
      return made === null ? undefined : dayBefore(addYears(made, CREP_YEARS));
    case "ELECTRICITY":
    case "GAS":
      return made === null ? undefined : dayBefore(addYears(made, INSTALLATION_REPORT_YEARS));
    default:
      return null;
  }
}

const dayBefore = (date: string) => {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() - 1);
  return t.toISOString().slice(0, 10);
};

/** One verdict per catalog code but OTHER. */
export function annexVerdicts(f: AnnexFacts): Verdict[] {
  return ANNEX_CODES.filter((code) => code !== "OTHER").map((code) => annexVerdict(code, f));
}

function annexVerdict(code: AnnexCode, f: AnnexFacts): Verdict {
  const rule = `annex.${code}`;
  const ref = ANNEX_LEGAL_REFERENCES[code];
  if (!underLoi89(f.lease_type))
    return verdict(rule, "NOT_APPLICABLE", `A ${f.lease_type} lease is not under ${LOI_89}`, ref, { code });
  const need = requirement(code, f);
  if (need.required === false)
    return verdict(rule, "NOT_APPLICABLE", `${code} is not required for this lease`, ref, { code });
  const candidates = f.attached.filter((a) => a.code === code);
  const judged = candidates.map((a) => ({ annex: a, until: validUntil(a) }));
  const valid = judged.find((j) => j.until === null || (j.until !== undefined && j.until >= f.signing_date));
  if (valid)
    return verdict(rule, "PASS", `${code} attached and valid on ${f.signing_date}`, ref, {
      code,
      valid_until: valid.until ?? null,
    });
  if (need.required === null)
    return verdict(rule, "UNKNOWN", `Whether ${code} is required is unknown: ${need.why}`, ref, { code });
  if (need.required === "optional")
    return verdict(rule, "NOT_APPLICABLE", `${code} is optional: ${need.why}`, ref, { code, optional: true });
  if (need.required === "at_handover")
    return verdict(
      rule,
      "NOT_APPLICABLE",
      `${code} is drawn up at the keys' handover, not before the signing (${ref}): due then`,
      ref,
      { code, due: "AT_HANDOVER" },
    );
  if (candidates.length === 0)
    return verdict(rule, "FAIL", `${code} is a mandatory annex and is not attached (${ref})`, ref, {
      code,
      problem: "MISSING",
    });
  const undated = judged.every((j) => j.until === undefined);
  if (undated)
    return verdict(
      rule,
      "FAIL",
      `${code} is attached without its date: its validity cannot be judged (${ref})`,
      ref,
      {
        code,
        problem: "MISSING",
      },
    );
  const last = judged
    .map((j) => j.until)
    .filter((u): u is string => typeof u === "string")
    .sort()
    .at(-1);
  return verdict(
    rule,
    "FAIL",
    `${code} expired on ${last}, before the signing on ${f.signing_date} (${ref})`,
    ref,
    {
      code,
      problem: "EXPIRED",
      valid_until: last ?? null,
    },
  );
}

export interface AnnexCompliance {
  status: "COMPLIANT" | "NON_COMPLIANT";
  missing: { code: AnnexCode; reason: string; legal_reference: string }[];
  /** Not attached yet, drawn up at the keys' handover (art. 3-2, 25-5): never a reason to refuse signing. */
  due_at_handover: { code: AnnexCode; reason: string; legal_reference: string }[];
  expired: { code: AnnexCode; valid_until: string | null; reason: string; legal_reference: string }[];
  verdicts: Verdict[];
}

/** The compliance answer of the annexes: COMPLIANT when no verdict FAILs. */
export function annexCompliance(f: AnnexFacts): AnnexCompliance {
  const verdicts = annexVerdicts(f);
  const failed = verdicts.filter((v) => v.status === "FAIL");
  const item = (v: Verdict) => ({
    code: v.details.code as AnnexCode,
    reason: v.message,
    legal_reference: v.legal_reference,
  });
  return {
    status: failed.length === 0 ? "COMPLIANT" : "NON_COMPLIANT",
    missing: failed.filter((v) => v.details.problem === "MISSING").map(item),
    due_at_handover: verdicts.filter((v) => v.details.due === "AT_HANDOVER").map(item),
    expired: failed
      .filter((v) => v.details.problem === "EXPIRED")
      .map((v) => ({ ...item(v), valid_until: (v.details.valid_until as string | null) ?? null })),
    verdicts,
  };
}

export const HANDOVER_FROM_STATUSES = ["ACTIVE", "NOTICE", "FINALISATION"] as const;

export interface HandoverFacts {
  lease_type: LeaseType;
  /** The lease's status: from ACTIVE on, the keys were handed over. */
  lease_status: string;
  /** A SIGNED entry condition report, or one attached as an annex. */
  entry_report: boolean;
  /** A furniture inventory recorded for the lease, or one attached as an annex. */
  inventory: boolean;
}

/**
 * The documents drawn up at the keys' handover (art. 3-2 for the entry condition report, art. 25-5
 * for a furnished lease's inventory): NOT_APPLICABLE before the lease is under way (due then),
 * FAIL once it is ACTIVE (or under notice, finalising) without them, PASS with them.
 */
export function handoverDocumentsVerdict(f: HandoverFacts): Verdict {
  const rule = "HANDOVER_DOCUMENTS";
  const ref = `${LOI_89} art. 3-2, 25-5`;
  if (!underLoi89(f.lease_type))
    return verdict(rule, "NOT_APPLICABLE", `A ${f.lease_type} lease is not under ${LOI_89}`, ref);
  const due: { code: AnnexCode; present: boolean }[] = [
    { code: "ENTRY_CONDITION_REPORT", present: f.entry_report },
    ...(furnished(f.lease_type) ? [{ code: "INVENTORY" as const, present: f.inventory }] : []),
  ];
  const missing = due.filter((d) => !d.present).map((d) => d.code);
  const details = { lease_status: f.lease_status, due: due.map((d) => d.code), missing };
  if (!(HANDOVER_FROM_STATUSES as readonly string[]).includes(f.lease_status))
    return verdict(
      rule,
      "NOT_APPLICABLE",
      `${due.map((d) => d.code).join(" and ")}: drawn up at the keys' handover (${ref}), due then`,
      ref,
      details,
    );
  if (missing.length === 0)
    return verdict(rule, "PASS", "The documents of the keys' handover are drawn up", ref, details);
  return verdict(
    rule,
    "FAIL",
    `The lease is ${f.lease_status} without ${missing.join(" and ")}, drawn up at the keys' handover (${ref})`,
    ref,
    {
      ...details,
      errors: missing.map((code) => ({ field: code, message: `${ANNEX_LEGAL_REFERENCES[code]}: missing` })),
    },
  );
}
