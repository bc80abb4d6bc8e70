// The audit console's script (docs/portal.md): the export's proof checked in the browser, as
// `pms audit verify` checks it (src/platform/eventstore/verifyChain.ts). Progressive enhancement:
// the timeline and the replay work without it.

/** RFC 8785 (JCS): keys sorted by UTF-16 code units, ECMAScript number and string forms. */
function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : canonical(v))).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function rootOfPath(leaf, path) {
  let node = leaf;
  for (const step of path) node = await sha256Hex(step.side === "left" ? step.hash + node : node + step.hash);
  return node;
}

/** The first line that does not hold (1-based) and why, or the counts when all hold. */
async function verifyExport(text) {
  const heads = new Map();
  let events = 0;
  let proofs = 0;
  const lines = text.split("\n");
  for (let n = 1; n <= lines.length; n++) {
    const raw = lines[n - 1];
    if (raw.trim() === "") continue;
    const fail = (reason) => ({ ok: false, line: n, reason });
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      return fail("ce n'est pas du JSON");
    }
    if (value && typeof value === "object" && "proof" in value) {
      const proof = value.proof || {};
      const stream = heads.get(proof.stream_name);
      if (!stream) return fail("une preuve pour un flux sans événement avant elle");
      if (stream.hashes.get(proof.stream_revision) !== proof.hash)
        return fail(
          `la tête de la preuve (révision ${proof.stream_revision}) n'est pas l'événement de l'export`,
        );
      if (!Array.isArray(proof.path) || (await rootOfPath(proof.hash, proof.path)) !== proof.root)
        return fail(`le chemin de la preuve ne mène pas à la racine du ${proof.day}`);
      proofs++;
      continue;
    }
    if (
      !value ||
      typeof value !== "object" ||
      typeof value.stream_name !== "string" ||
      typeof value.hash !== "string"
    )
      return fail("ce n'est pas une ligne d'événement");
    const { hash, ...rest } = value;
    if ((await sha256Hex(canonical(rest))) !== hash)
      return fail(
        `son empreinte n'est pas celle de la ligne : l'événement ${value.type ?? ""} (révision ${value.stream_revision}) a été modifié`,
      );
    const stream = heads.get(value.stream_name);
    if (!stream) {
      if (value.stream_revision !== 0 || value.previous_hash !== null)
        return fail("le premier événement d'un flux doit être la révision 0, sans précédent");
      heads.set(value.stream_name, { revision: 0, hash, hashes: new Map([[0, hash]]) });
    } else {
      if (value.stream_revision !== stream.revision + 1)
        return fail(`la révision ${value.stream_revision} ne suit pas la ${stream.revision}`);
      if (value.previous_hash !== stream.hash)
        return fail("son previous_hash n'est pas l'empreinte de l'événement précédent");
      stream.revision = value.stream_revision;
      stream.hash = hash;
      stream.hashes.set(value.stream_revision, hash);
    }
    events++;
  }
  return { ok: true, events, streams: heads.size, proofs };
}

function showVerdict(verdict, source) {
  const out = document.getElementById("verdict");
  out.className = verdict.ok ? "verdict-ok" : "verdict-bad";
  out.textContent = verdict.ok
    ? `${source} : intègre. ${verdict.events} événement(s) dans ${verdict.streams} flux, chaque empreinte et chaque lien concordent` +
      (verdict.proofs
        ? `, ${verdict.proofs} preuve(s) vérifiée(s) jusqu'à leur racine quotidienne.`
        : " (aucune racine quotidienne encore).")
    : `${source} : NON INTÈGRE à la ligne ${verdict.line} : ${verdict.reason}.`;
}

document.addEventListener("DOMContentLoaded", () => {
  const slider = document.getElementById("etape");
  const shown = document.getElementById("etape-valeur");
  if (slider && shown) slider.addEventListener("input", () => (shown.textContent = slider.value));

  const button = document.getElementById("verify-export");
  if (button) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      const res = await fetch(button.dataset.url, { credentials: "same-origin" });
      if (!res.ok)
        return showVerdict(
          { ok: false, line: 0, reason: `l'export n'a pas pu être lu (${res.status})` },
          "Export",
        );
      showVerdict(await verifyExport(await res.text()), "Export du service");
    });
  }
  const file = document.getElementById("export-file");
  if (file)
    file.addEventListener("change", async () => {
      const chosen = file.files?.[0];
      if (chosen) showVerdict(await verifyExport(await chosen.text()), `Fichier ${chosen.name}`);
    });
});
