import { comparePositions, type Position, positionToString, START } from "../eventstore/eventStore.ts";
import { type Checkpoint, loadCheckpoint } from "./checkpoints.ts";
import type { Projection } from "./projection.ts";
import { notifyWaiters, type Projector, type Runner } from "./projector.ts";
import { loadHeld } from "./quarantine.ts";
import { rebuildProjection } from "./rebuildProjection.ts";

/**
 * Checkpoints beyond the end of the log (docs/operations.md, "Backup and restore"): the read
 * models are ahead of the log they were built from. The projector refuses to start rather than
 * skip what the log holds up to them.
 */
export class CheckpointAheadError extends Error {
  readonly projections: { name: string; position: Position }[];
  readonly head: Position;
  constructor(projections: { name: string; position: Position }[], head: Position) {
    super(
      `Projection checkpoints are beyond the end of the event log (${positionToString(head)}): ${projections
        .map((p) => `${p.name} at ${positionToString(p.position)}`)
        .join(", ")}. The log was restored from an older backup while the read models were kept. ` +
        "If the log comes from another PostgreSQL server, run `pms log adopt`; otherwise rebuild each from the log: " +
        projections.map((p) => `\`pms projections rebuild ${p.name}\``).join(", "),
    );
    this.projections = projections;
    this.head = head;
    this.name = "CheckpointAheadError";
  }
}

/** Takes the lock of each projection not yet run here; builds those whose version changed. */
export async function claim(p: Projector): Promise<void> {
  // The log's head as this projector can read it, looked up once per claim round.
  let head: Promise<Position> | null = null;
  const logHead = () => {
    head ??= p.store.headPosition({ past_other_databases: true }).then((h) => h ?? START);
    return head;
  };
  const ahead: { name: string; position: Position }[] = [];
  for (const projection of p.projections) {
    if (p.stopped || p.runners.has(projection.name)) continue;
    const release = await p.sql.tryLock(`projection:${projection.name}`).catch(() => null);
    if (!release) continue;
    try {
      const checkpoint = await loadCheckpoint(p.sql, projection.name);
      // A checkpoint past the log's end: the log was restored from an older backup while the
      // read models were kept. Going on would skip every event written up to it again.
      if (checkpoint && comparePositions(checkpoint.position, await logHead()) > 0) {
        ahead.push({ name: projection.name, position: checkpoint.position });
        await release();
        continue;
      }
      const built = await buildIfChanged(p, projection, checkpoint);
      const held = await loadHeld(p.sql, projection);
      p.runners.set(projection.name, newRunner(projection, release, built?.position ?? START, held));
    } catch (error) {
      p.log.error(error, `projection ${projection.name} could not start`);
      await release();
    }
  }
  if (ahead.length > 0) {
    p.fatal = new CheckpointAheadError(ahead, await logHead());
    p.log.error(p.fatal, "projections refused to start");
    p.stopped = true;
  }
  notifyWaiters(p);
}

/** The checkpoint to start from: rebuilt first when there is none or its version changed. */
async function buildIfChanged(
  p: Projector,
  projection: Projection,
  checkpoint: Checkpoint | null,
): Promise<Checkpoint | null> {
  if (checkpoint && checkpoint.version === projection.version) return checkpoint;
  // A first build is routine; a changed version replays the log, worth an operator's eye.
  const say = checkpoint ? p.log.info : (p.log.debug ?? p.log.info);
  say(`projection ${projection.name}: building version ${projection.version}`);
  await rebuildProjection(p.sql, p.store, projection, say);
  return loadCheckpoint(p.sql, projection.name);
}

function newRunner(
  projection: Projection,
  release: () => Promise<void>,
  position: Position,
  held: Set<string>,
): Runner {
  return {
    projection,
    handled: new Set(projection.handles),
    release,
    position,
    persisted: position,
    failures: 0,
    retryAt: 0,
    kept: new Map(),
    held,
  };
}

/**
 * After a rebuild swapped tables under us: continue from the checkpoint it wrote (`read`: that
 * checkpoint as the caller just read it, else read here).
 */
export async function reload(p: Projector, runner: Runner, read?: Checkpoint | null): Promise<void> {
  runner.kept.clear();
  const current = read !== undefined ? read : await loadCheckpoint(p.sql, runner.projection.name);
  if (!current || current.version !== runner.projection.version) {
    await rebuildProjection(p.sql, p.store, runner.projection, p.log.info);
    return reload(p, runner);
  }
  runner.position = current.position;
  runner.persisted = current.position;
  runner.held = await loadHeld(p.sql, runner.projection);
}
