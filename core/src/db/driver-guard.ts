/**
 * postgres.js 3.4.9 can crash the whole process when the server closes a connection under
 * load (a PostgreSQL restart, `-m immediate`): a small write queued with setImmediate runs after
 * the socket was nulled, and `socket.write` throws from the timer, where no caller can catch it
 * ("Cannot read properties of null (reading 'write')" at nextWrite; upstream issues
 * porsager/postgres#1154 and #1208, fix proposed in #1168/#1209, not released). By then the
 * connection's queries were already rejected with CONNECTION_CLOSED and the pool reconnects,
 * so the lost write is moot: this guard ignores exactly that error and keeps Node's default
 * for everything else (print, exit 1). Remove it once the driver guards the write itself.
 */
export function isDriverCloseRace(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /reading 'write'/.test(error.message) &&
    /postgres[\\/]src[\\/]connection\.js/.test(error.stack ?? '') &&
    /nextWrite/.test(error.stack ?? '')
  );
}

export function installDriverCloseRaceGuard(log: { warn(object: object, message: string): void }): void {
  process.on('uncaughtException', (error, origin) => {
    if (isDriverCloseRace(error)) {
      log.warn(
        { err: { message: error.message } },
        'database connection closed under a queued write (postgres.js close race); the pool reconnects',
      );
      return;
    }
    // What Node does without a handler: report and exit.
    process.stderr.write(`${origin}: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  });
}
