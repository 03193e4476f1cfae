/**
 * An ioredis client whose command timeout is not fooled by this process's own lag.
 *
 * ioredis's `commandTimeout` is a plain timer. When the event loop is starved for longer
 * than the timeout (a CPU-bound burst at the opening), the reply has long been in the socket
 * but the loop runs its timers before it reads sockets, so the timer fails a command Redis
 * answered in time, and a buyer gets 503 while Redis is fine. Here a timeout, once due, first
 * lets the loop turn's I/O phase run (setImmediate runs after it) and fails the command only
 * if the reply has still not come: a Redis that does not answer still fails the command about
 * `commandTimeout` after it was sent. ioredis keeps arming and clearing its own timer; only
 * what happens when it fires changes (edge/test/redis-timeout.test.ts shows both cases).
 */
import Redis, { type Command } from 'ioredis';

type WriteableStream = Parameters<Redis['sendCommand']>[1];

/** ioredis's message for its own command timeout (Command#setTimeout). */
const TIMED_OUT = 'Command timed out';

export class PatientRedis extends Redis {
  override sendCommand(command: Command, stream?: WriteableStream): unknown {
    if (this.options.commandTimeout !== undefined && !command.isResolved) {
      const reject = command.reject;
      command.reject = (error: Error) => {
        if (error.message !== TIMED_OUT) return reject(error);
        setImmediate(() => {
          if (!command.isResolved) reject(error);
        });
      };
    }
    return super.sendCommand(command, stream);
  }
}
