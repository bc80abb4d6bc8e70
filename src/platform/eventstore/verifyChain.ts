import { type ChainLine, lineHash, type ProofStep, rootOfPath, sha256Hex } from "./chain.ts";
import type { RecordedEvent } from "./eventStore.ts";

/** An event's line in an export (docs/audit.md, "Export"): as stored, whatever the read path made of it. */
export function chainLine(event: RecordedEvent): ChainLine {
  const stored = event.as_stored ?? event;
  return {
    stream_name: event.stream_name,
    stream_revision: Number(event.stream_revision),
    event_id: event.event_id,
    type: event.type,
    schema_version: stored.schema_version,
    data: stored.data,
    metadata: event.metadata,
    previous_hash: event.previous_hash ?? null,
    hash: event.hash ?? "",
  };
}

/** The proof trailer: a stream's head on a day and the Merkle path from it to the tenant's root. */
export interface HeadProof {
  tenant_id: string;
  day: string;
  root: string;
  stream_name: string;
  stream_revision: number;
  hash: string;
  path: ProofStep[];
}

export interface Verdict {
  ok: boolean;
  events: number;
  streams: number;
  /** Proofs checked against their root, one per stream that had one. */
  proofs: { stream_name: string; day: string; root: string; stream_revision: number }[];
  /** The first line that does not hold (1-based), and why. */
  failure?: {
    line: number;
    event_id?: string;
    stream_name?: string;
    stream_revision?: number;
    reason: string;
  };
}

/**
 * Whether a line's hash is its own. The export prints lines in canonical form, so the text without
 * `"hash":"…"` (right after `event_id`, keys being sorted) is what was hashed: one SHA-256, no
 * re-serialising. A line printed otherwise (reformatted by a tool) is checked the long way.
 */
function holds(text: string, line: ChainLine): boolean {
  const id = `"event_id":${JSON.stringify(line.event_id)}`;
  const member = `${id},"hash":${JSON.stringify(line.hash)}`;
  const at = text.indexOf(member);
  if (at >= 0 && sha256Hex(text.slice(0, at) + id + text.slice(at + member.length)) === line.hash)
    return true;
  try {
    return lineHash(line) === line.hash;
  } catch {
    return false;
  }
}

/**
 * Checks an export line by line, offline: each event's hash is its line's, each links to the one
 * before it in its stream (null at revision 0, revisions consecutive), and each proof trailer's
 * head is an event of the export whose path leads to the root it names. Stops at the first fault.
 */
export function verifyLines(lines: Iterable<string>): Verdict {
  const heads = new Map<string, { revision: number; hash: string; hashes: Map<number, string> }>();
  const proofs: Verdict["proofs"] = [];
  let events = 0;
  let n = 0;
  const fail = (reason: string, line?: Partial<ChainLine>): Verdict => ({
    ok: false,
    events,
    streams: heads.size,
    proofs,
    failure: {
      line: n,
      event_id: typeof line?.event_id === "string" ? line.event_id : undefined,
      stream_name: typeof line?.stream_name === "string" ? line.stream_name : undefined,
      stream_revision: typeof line?.stream_revision === "number" ? line.stream_revision : undefined,
      reason,
    },
  });
  for (const text of lines) {
    n++;
    if (text.trim() === "") continue;
    let value: any;
    try {
      value = JSON.parse(text);
    } catch {
      return fail("not JSON");
    }
    if (value && typeof value === "object" && "proof" in value) {
      const proof = value.proof as HeadProof;
      const stream = heads.get(proof?.stream_name);
      if (!stream) return fail("a proof for a stream with no event before it");
      if (stream.hashes.get(proof.stream_revision) !== proof.hash)
        return fail(`the proof's head (revision ${proof.stream_revision}) is not the export's event`, {
          stream_name: proof.stream_name,
          stream_revision: proof.stream_revision,
        });
      if (!Array.isArray(proof.path) || rootOfPath(proof.hash, proof.path) !== proof.root)
        return fail(`the proof's path does not lead to the root of ${proof.day}`, {
          stream_name: proof.stream_name,
          stream_revision: proof.stream_revision,
        });
      proofs.push({
        stream_name: proof.stream_name,
        day: proof.day,
        root: proof.root,
        stream_revision: proof.stream_revision,
      });
      continue;
    }
    const line = value as ChainLine;
    if (
      !line ||
      typeof line !== "object" ||
      typeof line.stream_name !== "string" ||
      typeof line.hash !== "string"
    )
      return fail("not an event line", line);
    if (!holds(text, line)) return fail("its hash is not the hash of its line (the event was changed)", line);
    const stream = heads.get(line.stream_name);
    if (!stream) {
      if (line.stream_revision !== 0 || line.previous_hash !== null)
        return fail("the stream's first event must be revision 0 with previous_hash null", line);
      heads.set(line.stream_name, {
        revision: 0,
        hash: line.hash,
        hashes: new Map([[0, line.hash]]),
      });
    } else {
      if (line.stream_revision !== stream.revision + 1)
        return fail(`revision ${line.stream_revision} does not follow ${stream.revision}`, line);
      if (line.previous_hash !== stream.hash)
        return fail("its previous_hash is not the hash of the event before it", line);
      stream.revision = line.stream_revision;
      stream.hash = line.hash;
      stream.hashes.set(line.stream_revision, line.hash);
    }
    events++;
  }
  return { ok: true, events, streams: heads.size, proofs };
}
