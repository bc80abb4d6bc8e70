/**
 * A functional decider (Emmett style): state is folded from the stream with `evolve`,
 * `decide` turns a command into new events or throws an ApiError. No I/O in either.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

/** Folds events into state, as the command handler and the tests do. */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/** The fields of `input` present and different from `current` (omitted keeps, null removes). */
export function changedFields<T extends object>(
  current: T,
  input: Partial<Record<keyof T, unknown>>,
  names: readonly (keyof T)[],
): Partial<T> {
  const changes: Partial<T> = {};
  for (const name of names) {
    if (!(name in input) || input[name] === undefined) continue;
    if (JSON.stringify(input[name]) !== JSON.stringify(current[name]))
      changes[name] = input[name] as T[keyof T];
  }
  return changes;
}

/**
 * The list of every type of an event union, checked both ways by the compiler: each item is a type
 * of the union (`satisfies`), and no type of the union is missing (the argument's type then names
 * it). `allEventTypes<MyEvent["type"]>()(["A", "B"])`.
 */
export const allEventTypes =
  <T extends string>() =>
  <const L extends readonly T[]>(
    list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> }),
  ) =>
    list as L;
