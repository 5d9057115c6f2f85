import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of simnet that can drop every connection and refuse new ones, as an
 * upstream process that is killed (the kernel closes its sockets), then listen again on the
 * same port, as the restarted process; or stop forwarding with the connections left open, as a
 * network path that silently dies.
 */
export async function startKillableRelay(target: string) {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  const pairs: [net.Socket, net.Socket][] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: hostname, port: Number(targetPort) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    kill: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
    revive: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    blackhole: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    stop: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) server.close(() => resolve());
      else resolve();
    }),
  };
}
