/**
 * A listener could not bind its port because something else holds it. The CLI turns it into one
 * line naming the port and the setting that moves it, and exit code 2 (a setting to change, not
 * a crash).
 */
export class PortInUseError extends Error {
  constructor(readonly port: number, readonly setting: string) {
    super(`port ${port} is already in use: stop what listens there, or set ${setting} to another port`);
    this.name = 'PortInUseError';
  }
}

/** Node's listen error (`code: 'EADDRINUSE'`), or grpc-js's bind error, which only says it in its message. */
function isAddressInUse(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  return (error as { code?: unknown }).code === 'EADDRINUSE' || /EADDRINUSE|address already in use/i.test(String((error as { message?: unknown }).message));
}

/** Runs `listen`; a port already in use becomes a {@link PortInUseError} naming `setting`. */
export async function bindPort<T>(setting: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(port, setting);
    throw error;
  }
}
