import { Transaction } from '@mysten/sui/transactions';
import { WebSocket } from 'ws';

/** A transfer as the SDK's docs write it: split the amount off the gas coin, transfer the piece. */
export function transfer(amount: number, recipient: string): Transaction {
  const tx = new Transaction();
  const [coin] = tx.splitCoins(tx.gas, [amount]);
  tx.transferObjects([coin!], recipient);
  return tx;
}

/**
 * A Warp WebSocket of an `address` stream, acknowledging each event and collecting the digests
 * of the transactions it reports; resolves once the socket is open.
 */
export async function openAddressSocket(url: string, key: string): Promise<{ digests: string[]; close(): void }> {
  const digests: string[] = [];
  const socket = new WebSocket(url, { headers: { 'x-api-key': key } });
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as { event: string; id?: string; data?: { digest?: string } };
    if (message.event !== 'address') return;
    digests.push(message.data!.digest!);
    socket.send(JSON.stringify({ type: 'ack', id: message.id }));
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { digests, close: () => socket.close() };
}
