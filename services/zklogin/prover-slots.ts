/**
 * The prover slots of this process: at most `size` proofs in flight. A request that finds every
 * slot taken does not queue (a proof takes seconds; a queue would only move the timeout): it is
 * refused at once with 503 PROVER_BUSY and a Retry-After.
 *
 * The slots are shared by every organization, so one organization holds at most `perOrganization`
 * of them (default: all but a quarter, at least one left to the others): a tenant whose plan (or
 * unlimited enterprise plan) lets it keep more proofs in flight than there are slots held every
 * slot for as long as it kept sending, and every other tenant got 503s.
 */
export class ProverSlots {
  readonly #size: number;
  readonly #perOrganization: number;
  #taken = 0;
  /** Slots held per organization (only organizations holding one). */
  readonly #takenBy = new Map<string, number>();

  constructor(size: number, perOrganization = defaultShare(size)) {
    if (!Number.isInteger(size) || size < 1) throw new Error('prover slots must be a positive integer');
    this.#size = size;
    this.#perOrganization = Math.max(1, Math.min(perOrganization, size));
  }

  /** Slots one organization may hold at once. */
  get perOrganization(): number {
    return this.#perOrganization;
  }

  /** A release function when a slot was free to the organization (call it exactly once), undefined otherwise. */
  tryAcquire(organizationId: string): (() => void) | undefined {
    const held = this.#takenBy.get(organizationId) ?? 0;
    if (this.#taken >= this.#size || held >= this.#perOrganization) return undefined;
    this.#taken += 1;
    this.#takenBy.set(organizationId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#taken -= 1;
      const left = (this.#takenBy.get(organizationId) ?? 1) - 1;
      if (left === 0) this.#takenBy.delete(organizationId);
      else this.#takenBy.set(organizationId, left);
    };
  }
}

/** A quarter of the slots (at least one) stays for the other organizations; one slot is all one's. */
function defaultShare(size: number): number {
  return size === 1 ? 1 : size - Math.max(1, Math.floor(size / 4));
}
