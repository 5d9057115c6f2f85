import { z } from 'zod';
import { ProverError, type ProofRequest, type ProofResponse, type Prover } from './prover.js';

const decimal = z.string().regex(/^\d+$/);

/** What we accept back from the prover service; anything else is a failed proof, not a 500. */
const proofResponseSchema = z.object({
  proofPoints: z.object({
    a: z.array(decimal).length(3),
    b: z.array(z.array(decimal).length(2)).length(3),
    c: z.array(decimal).length(3),
  }),
  issBase64Details: z.object({ value: z.string().min(1), indexMod4: z.number().int().min(0).max(3) }),
  headerBase64: z.string().min(1),
});

export interface HttpProverOptions {
  /** The prover service's base URL; proofs are requested at `POST {url}/v1`. */
  url: string;
  timeoutMs: number;
}

/** A client of Mysten's prover service API (the self-hosted `prover-fe` image's `POST /v1`). */
export class HttpProver implements Prover {
  readonly #endpoint: string;
  readonly #timeoutMs: number;

  constructor(options: HttpProverOptions) {
    this.#endpoint = `${options.url.replace(/\/+$/, '')}/v1`;
    this.#timeoutMs = options.timeoutMs;
  }

  async prove(request: ProofRequest, signal?: AbortSignal): Promise<ProofResponse> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.#endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(request),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new ProverError(timeout.aborted ? `The prover did not answer within ${this.#timeoutMs} ms.` : 'The prover could not be reached.', { cause: error });
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) throw new ProverError(`The prover refused the request (HTTP ${response.status}).`, { cause: text.slice(0, 500) });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ProverError('The prover answered with something other than JSON.', { cause: error });
    }
    const proof = proofResponseSchema.safeParse(parsed);
    if (!proof.success) throw new ProverError('The prover answered with an unexpected shape.', { cause: proof.error });
    return proof.data;
  }
}
