import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createPaymentSandbox, type PaymentSandbox, type PaymentSandboxOptions } from './app';

export type StartPaymentSandboxOptions = PaymentSandboxOptions & {
  /** 0 (the default) picks a free port. */
  port?: number;
  hostname?: string;
};

export type RunningPaymentSandbox = {
  /** Base URL it listens on, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  sandbox: PaymentSandbox;
  close(): Promise<void>;
};

/**
 * Starts a sandbox on a real port, for tests of other parts and for `npm start`. Unless a
 * `publicUrl` is given, checkout links point at the address it actually listens on.
 */
export async function startPaymentSandbox(options: StartPaymentSandboxOptions = {}): Promise<RunningPaymentSandbox> {
  const hostname = options.hostname ?? '127.0.0.1';
  let sandbox: PaymentSandbox | null = null;
  const server = serve({
    // The app is built once the port is known (its checkout URLs need it).
    fetch: (request, env) => sandbox!.app.fetch(request, env),
    port: options.port ?? 0,
    hostname,
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = hostname === '0.0.0.0' || hostname === '::' ? '127.0.0.1' : hostname;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const built = createPaymentSandbox({ ...options, config: { publicUrl: url, ...(options.config ?? {}) } });
  sandbox = built;
  return {
    url,
    port,
    sandbox: built,
    close: () =>
      new Promise<void>((resolve, reject) => {
        built.close();
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
