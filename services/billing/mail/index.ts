export type { Email, Mailer } from './mailer.js';
export { SmtpMailer } from './smtp-mailer.js';
export { OutboxMailer } from './outbox-mailer.js';
