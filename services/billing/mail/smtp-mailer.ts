import nodemailer, { type Transporter } from 'nodemailer';
import type { Email, Mailer } from './mailer.js';

/** How long each phase of an SMTP delivery may take (ms). */
export interface SmtpTimeouts {
  /** The TCP (and TLS) connection, the DNS lookup included. */
  connectMs: number;
  /** The server's greeting (and a STARTTLS upgrade). */
  greetingMs: number;
  /** Silence in either direction once talking. */
  idleMs: number;
}

/**
 * nodemailer's own defaults are 2 minutes to connect, 30 s for the greeting and 10 minutes of
 * silence: a mail server that accepts and stops talking held a billing pass (and the charging
 * lock every organization's charge needs) for up to 12.5 minutes. With these, an email that
 * cannot go in about a minute fails, stays queued and is sent by the next pass (docs/billing.md).
 */
export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = { connectMs: 15_000, greetingMs: 15_000, idleMs: 30_000 };

/** SMTP through nodemailer (`SUIGW_SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`). */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(options: { url: string; from: string; timeouts?: SmtpTimeouts }) {
    const timeouts = options.timeouts ?? DEFAULT_SMTP_TIMEOUTS;
    // The URL's own settings win over these (nodemailer merges a url with the other keys so).
    this.#transport = nodemailer.createTransport({
      url: options.url,
      connectionTimeout: timeouts.connectMs,
      greetingTimeout: timeouts.greetingMs,
      socketTimeout: timeouts.idleMs,
    });
    this.#from = options.from;
  }

  async send(email: Email): Promise<void> {
    await this.#transport.sendMail({ from: this.#from, to: email.to, subject: email.subject, text: email.text });
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}
