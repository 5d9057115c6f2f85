import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SmtpMailer } from './smtp-mailer.js';

const EMAIL = { to: 'owner@example.com', subject: 'Renewal', text: 'Your plan renews soon.' };

/**
 * A mail server that stops talking must not hold the billing pass: each phase of a delivery has
 * its own deadline (the defaults are nodemailer's 30 s greeting and 10 min of silence, far longer).
 */
describe('SmtpMailer against a silent server', () => {
  const servers: { server: net.Server; sockets: net.Socket[] }[] = [];
  afterEach(async () => {
    for (const { server, sockets } of servers.splice(0)) {
      // A server closes once its connections have: the silent ones are ended here.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });

  /** A TCP server that accepts, optionally greets, then never says anything again. */
  async function silentServer(greeting: string | undefined): Promise<{ url: string; sockets: net.Socket[] }> {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      if (greeting) socket.write(greeting);
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    servers.push({ server, sockets });
    const { port } = server.address() as AddressInfo;
    return { url: `smtp://127.0.0.1:${port}`, sockets };
  }

  const failureOf = (mailer: SmtpMailer) => mailer.send(EMAIL).then(() => 'sent', (error: { code?: string; message: string }) => `${error.code}: ${error.message}`);

  // Each waits 200 ms for a server that would hold it for nodemailer's default (30 s, 10 min): a
  // test still running at 10 s means the deadline was not applied.
  it('gives up on a server that never greets', { timeout: 10_000 }, async () => {
    const { url, sockets } = await silentServer(undefined);
    const mailer = new SmtpMailer({ url, from: 'billing@suigw.test', timeouts: { connectMs: 5_000, greetingMs: 200, idleMs: 60_000 } });
    expect(await failureOf(mailer)).toBe('ETIMEDOUT: Greeting never received');
    expect(sockets).toHaveLength(1);
    await mailer.close();
  });

  it('gives up on a server that greets and then falls silent', { timeout: 10_000 }, async () => {
    const { url } = await silentServer('220 mail.example ESMTP ready\r\n');
    const mailer = new SmtpMailer({ url, from: 'billing@suigw.test', timeouts: { connectMs: 5_000, greetingMs: 5_000, idleMs: 200 } });
    expect(await failureOf(mailer)).toBe('ETIMEDOUT: Timeout');
    await mailer.close();
  });
});
