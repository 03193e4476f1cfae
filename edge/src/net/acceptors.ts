/**
 * Node only: more file descriptors for the edge's listening socket, so that a busy process
 * takes in more than one new connection per event-loop turn.
 *
 * libuv (1.45 and later, Node 20) accepts one connection per turn and listening descriptor.
 * An edge whose turns take 100 ms under load therefore takes in ten new connections a second,
 * however cheap their requests: new buyers, buyers reconnecting and a load balancer's probes
 * wait in the kernel's accept queue (511) for tens of seconds, past their patience, while
 * buyers on kept-alive connections are served. Each extra descriptor for the same socket is
 * polled on its own, so N descriptors accept up to N connections per turn.
 *
 * A process cannot duplicate a descriptor through Node's API, but it can receive one: a helper
 * process started for the purpose gets the listening handle over IPC (SCM_RIGHTS) and sends it
 * straight back, which hands this process a new descriptor for the same socket. The helper only
 * passes raw handles (it never listens, so it never takes a connection) and exits at once.
 * Each descriptor is served by a `net.Server` that passes its connections to the HTTP server.
 */
import { spawn } from 'node:child_process';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** Echoes every handle it is sent, then leaves once told the last one is coming. */
const ECHO =
  "process.on('message', (m, h) => process.send(m, h, () => { h.close(); if (m === 'last') process.disconnect(); }));";

type Handle = { fd?: number; constructor: { name: string } };

/**
 * Adds `count - 1` descriptors for `server`'s listening socket (none when `count` is 1, or when
 * the server's handle is not a TCP socket of its own, as in a node:cluster worker, where the
 * primary accepts). Returns the extra servers, to close with the HTTP server.
 */
export async function addAcceptors(server: HttpServer, count: number, timeoutMs = 5_000): Promise<NetServer[]> {
  const handle = (server as unknown as { _handle?: Handle | null })._handle;
  if (count <= 1 || !handle || handle.constructor.name !== 'TCP') return [];
  const helper = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const extra: NetServer[] = [];
  try {
    for (let i = 1; i < count; i++) {
      const copy = await new Promise<Handle>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('acceptors: the helper did not answer')), timeoutMs);
        helper.once('message', (_message, received) => {
          clearTimeout(timer);
          resolve(received as Handle);
        });
        helper.once('error', reject);
        helper.send(i === count - 1 ? 'last' : 'more', handle as never);
      });
      const acceptor = new NetServer({ noDelay: true });
      acceptor.on('connection', (socket: Socket) => server.emit('connection', socket));
      await new Promise<void>((resolve) => acceptor.listen(copy as never, resolve));
      extra.push(acceptor);
    }
  } catch (error) {
    for (const acceptor of extra) acceptor.close();
    helper.kill();
    throw error;
  }
  return extra;
}
