// Decisions in batches: the verify and intelligence calls whose bodies were read in one turn of the event loop
// are decided together at that turn's end, one after the other, instead of each between the next requests'
// HTTP parsing, routing and logging. An evaluation touches the code and data of every enabled plugin and of
// the engine; run back to back they stay in the CPU's caches, where run between other requests' work each
// one fetched them again (bench/README.md, the twenty-fourth pass: verify's event loop cost 250 → 194 µs a
// request under load). A request that arrives alone waits only for the turn's end (setImmediate).

/** Resolves at the end of the current turn, with every other caller of this turn. */
export type TurnBatch = () => Promise<void>;

export function createTurnBatch(): TurnBatch {
  let waiting: Array<() => void> = [];
  const release = () => {
    const batch = waiting;
    waiting = [];
    for (const resolve of batch) resolve();
  };
  return () =>
    new Promise<void>((resolve) => {
      if (waiting.push(resolve) === 1) setImmediate(release);
    });
}
