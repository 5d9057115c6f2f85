import nodemailer, { type Transporter } from 'nodemailer';
import type { Email, Mailer } from './mailer.js';

/** SMTP through nodemailer (`SUIGW_SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`). */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter;
  readonly #from: string;

  constructor(options: { url: string; from: string }) {
    this.#transport = nodemailer.createTransport(options.url);
    this.#from = options.from;
  }

  async send(email: Email): Promise<void> {
    await this.#transport.sendMail({ from: this.#from, to: email.to, subject: email.subject, text: email.text });
  }

  async close(): Promise<void> {
    this.#transport.close();
  }
}
