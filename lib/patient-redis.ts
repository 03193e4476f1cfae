/**
 * An ioredis client whose command timeout is not fooled by this process's own lag.
 *
 * ioredis's `commandTimeout` is a plain timer. When the event loop is starved for longer
 * than the timeout (a CPU-bound burst at the opening), the reply has long been in the socket
 * but the loop runs its timers before it reads sockets, so the timer fails a command Redis
 * answered in time, and a buyer gets 503 while Redis is fine. Here a due timeout first lets
 * the loop turn's I/O phase run (setImmediate runs after it) and fails the command only if
 * the reply has still not come: a Redis that does not answer still fails the command about
 * `commandTimeoutMs` after it was sent.
 */
import Redis, { type Command, type RedisOptions } from 'ioredis';

type WriteableStream = Parameters<Redis['sendCommand']>[1];

export class PatientRedis extends Redis {
  private readonly timeoutMs: number;

  constructor(url: string, options: Omit<RedisOptions, 'commandTimeout'> & { commandTimeoutMs: number }) {
    const { commandTimeoutMs, ...rest } = options;
    super(url, rest);
    this.timeoutMs = commandTimeoutMs;
  }

  override sendCommand(command: Command, stream?: WriteableStream): unknown {
    if (!command.isResolved) {
      const timer = setTimeout(failIfUnanswered, this.timeoutMs, command);
      command.promise.then(
        () => clearTimeout(timer),
        () => clearTimeout(timer),
      );
    }
    return super.sendCommand(command, stream);
  }
}

function failIfUnanswered(command: Command) {
  setImmediate(() => {
    if (!command.isResolved) command.reject(new Error('Command timed out'));
  });
}
