/**
 * The prover slots of this process: at most `size` proofs in flight. A request that finds every
 * slot taken does not queue (a proof takes seconds; a queue would only move the timeout): it is
 * refused at once with 503 PROVER_BUSY and a Retry-After.
 */
export class ProverSlots {
  readonly #size: number;
  #taken = 0;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('prover slots must be a positive integer');
    this.#size = size;
  }

  /** A release function when a slot was free (call it exactly once), undefined when all are taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.#taken >= this.#size) return undefined;
    this.#taken += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#taken -= 1;
    };
  }
}
