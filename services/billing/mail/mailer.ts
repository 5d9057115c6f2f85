/** One email to an organization's owner. */
export interface Email {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** How billing emails leave: SMTP in production, an outbox file in `suigw dev`. */
export interface Mailer {
  send(email: Email): Promise<void>;
  close?(): Promise<void>;
}
