import type { Redis } from 'ioredis';

export interface RedisHealthLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/**
 * The core's Redis client must have an error listener: without one, ioredis prints
 * "[ioredis] Unhandled error event" for every reconnect attempt of an outage. This logs the
 * outage once when it starts and once when the connection is back, and nothing in between;
 * the outbox keeps the events meanwhile and the relay catches up by itself.
 */
export function watchRedisClient(redis: Redis, logger: RedisHealthLogger, name = 'redis'): () => boolean {
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { client: name, err: { message: error.message, code: (error as { code?: string }).code } },
      'redis unreachable; booking events wait in the outbox',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ client: name }, 'redis reachable again');
  });
  return () => down;
}
