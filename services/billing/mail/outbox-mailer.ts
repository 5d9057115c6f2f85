import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Email, Mailer } from './mailer.js';

/** `suigw dev`: emails are appended to a file (one JSON line each) instead of being sent. */
export class OutboxMailer implements Mailer {
  readonly #path: string;
  readonly #now: () => number;

  constructor(options: { path: string; now: () => number }) {
    this.#path = options.path;
    this.#now = options.now;
  }

  async send(email: Email): Promise<void> {
    await mkdir(dirname(this.#path), { recursive: true });
    await appendFile(this.#path, `${JSON.stringify({ at: new Date(this.#now()).toISOString(), ...email })}\n`);
  }
}
