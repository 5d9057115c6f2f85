import type { CheckpointRecord, GenesisAccount, Ledger } from '../ledger/index.js';
import { SeededRandom } from '../ledger/hashing.js';
import { TransactionRejected, applyOutcome } from '../execution/index.js';
import type { Executor } from '../execution/index.js';
import { ActivityPlanner } from './activity.js';
import { FastEd25519Signer } from './signing.js';

export interface ProducerOptions {
  /** Wall-clock time between checkpoints (the ledger's simulated clock advances by its own interval). */
  readonly intervalMs: number;
  /** Generated transactions per checkpoint (user-submitted ones come on top). */
  readonly transactionsPerCheckpoint: number;
}

/**
 * The accounts the producer sends between. It never touches the others, so tests can use
 * `alice` … `mallory` (and the faucet) without racing it: their balances only change by
 * what the tests do.
 */
export function producerSenders(accounts: readonly GenesisAccount[]): GenesisAccount[] {
  const first = accounts.findIndex((account) => account.label === 'niaj');
  return accounts.slice(first).filter((account) => account.label !== 'faucet' && account.label !== 'deployer');
}

/**
 * Seals a checkpoint every `intervalMs`, first executing `transactionsPerCheckpoint` generated
 * transactions (really signed by genesis keys and run through the executor).
 */
export class CheckpointProducer {
  readonly #ledger: Ledger;
  readonly #executor: Executor;
  readonly #options: ProducerOptions;
  readonly #planner: ActivityPlanner;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #inFlight: Promise<void> = Promise.resolve();
  readonly #signers = new Map<string, FastEd25519Signer>();

  constructor(ledger: Ledger, executor: Executor, options: ProducerOptions) {
    this.#ledger = ledger;
    this.#executor = executor;
    this.#options = options;
    const random = new SeededRandom(ledger.seed).fork('producer');
    const accounts = producerSenders(ledger.accounts);
    this.#planner = new ActivityPlanner(ledger, random, accounts, accounts);
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts (or resumes) sealing checkpoints. */
  resume(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops sealing; executed transactions wait for the next seal. Resolves when no tick is running. */
  async pause(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
  }

  /** Seals pending transactions into a checkpoint now (no generated activity). */
  sealNow(): CheckpointRecord {
    return this.#ledger.sealCheckpoint();
  }

  /** Generates one checkpoint's activity and seals it (what each tick does). */
  async produceCheckpoint(): Promise<CheckpointRecord> {
    for (let i = 0; i < this.#options.transactionsPerCheckpoint; i++) await this.#generateOne();
    return this.#ledger.sealCheckpoint();
  }

  /** Keeps the wall-clock cadence: the time spent producing counts toward the next interval. */
  #schedule(delayMs = this.#options.intervalMs): void {
    this.#timer = setTimeout(() => {
      const started = performance.now();
      this.#inFlight = this.produceCheckpoint()
        .then(() => undefined)
        .catch((error: unknown) => console.error('simnet producer:', error))
        .finally(() => {
          if (this.#running) this.#schedule(Math.max(0, this.#options.intervalMs - (performance.now() - started)));
        });
    }, delayMs);
  }

  async #generateOne(): Promise<void> {
    const planned = this.#planner.plan();
    if (!planned) return;
    let signer = this.#signers.get(planned.sender.address);
    if (!signer) {
      signer = new FastEd25519Signer(planned.sender);
      this.#signers.set(planned.sender.address, signer);
    }
    // The key is ours, so the signature is known good: skip re-verifying it.
    const record = { bytes: signer.signTransaction(planned.bytes), scheme: 'ed25519' as const };
    try {
      // Planned against the state before signing; a user transaction may have moved an object since.
      const outcome = this.#executor.execute(planned.bytes, { checks: true, signatures: [record] });
      if (!this.#ledger.getTransaction(outcome.record.digest)) applyOutcome(this.#ledger, outcome);
    } catch (error) {
      if (!(error instanceof TransactionRejected)) throw error;
    }
  }
}
