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
