import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingHarness, type BillingHarness } from '../../test/support/billing-harness.js';
import { SmtpMailer } from './mail/index.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const at = (iso: string) => Date.parse(iso);

/**
 * Billing emails leave by real SMTP (nodemailer, the production mailer) and arrive at a real
 * SMTP server in-process (`smtp-server`): the 7-day reminder and the failed-charge emails on
 * attempts 1, 3, 5 and 7, each once.
 */
describe('billing emails by SMTP', () => {
  let h: BillingHarness;
  let server: SMTPServer;
  const received: Received[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.server.address() as AddressInfo;
    h = await startBillingHarness({ seed: 'billing-email', start: at('2027-01-31T09:00:00.000Z'), mailer: new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'billing@suigw.test' }) });
  });
  afterAll(async () => {
    await h.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const subjects = () => received.map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]);

  it('reminder 7 days before the renewal when the balance is short, then failed charges emailed on attempts 1, 3, 5, 7', async () => {
    h.moveTo(at('2027-01-31T10:00:00.000Z'));
    const { allowanceId } = await h.setUp({ funder: 'grace', tier: 'team', prefundPeriods: 1 });
    expect((await h.call('POST', '/v1/billing/onchain/activate', { network: 'testnet', tier: 'team', allowanceId, notifyEmail: 'owner@acme.test' })).status).toBe(200);
    h.moveTo(at('2027-02-21T10:00:00.000Z'));
    expect(await h.billing.pass.run()).toMatchObject({ reminders: 1, emailsSent: 1, emailsFailed: 0 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'billing@suigw.test', to: ['owner@acme.test'] });
    expect(subjects()).toEqual(['Your team plan renews on 2027-02-28: add USDC']);
    expect(received[0]!.raw.replace(/=\r\n/g, '')).toContain('holds 0.00 USDC, less than the price');

    for (let day = 0; day < 7; day++) {
      h.moveTo(at('2027-02-28T10:00:00.000Z') + day * 86_400_000);
      await h.billing.pass.run();
    }
    expect(subjects()).toEqual([
      'Your team plan renews on 2027-02-28: add USDC',
      'Charge for your team plan failed (attempt 1 of 7)',
      'Charge for your team plan failed (attempt 3 of 7)',
      'Charge for your team plan failed (attempt 5 of 7)',
      'Your team plan has ended: the charge failed 7 times',
    ]);
    // Nothing is sent twice: every queued email is marked sent.
    expect(await h.billing.pass.run()).toMatchObject({ emailsSent: 0 });
    const unsent = await h.db.database.db.selectFrom('billing_emails').select('id').where('sent_at', 'is', null).execute();
    expect(unsent).toEqual([]);
  });
});
