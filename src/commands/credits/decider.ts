// The ledger's decider lives with its events (src/events/credits.ts): other areas reserve credits too.
export { type CreditCommand, creditDecider, decideCredits } from "../../events/credits.ts";
