/**
 * Development defaults for secrets (the admin token, the webhook secret) are public: they are
 * written in this repository. A service refuses to start with one when anyone but this
 * machine can reach it (bound to a non-loopback address) or when NODE_ENV=production, and
 * says so loudly otherwise.
 */

/** Only this machine can reach a service bound here. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Throws when a public default may not be used; returns the warning to log when it may.
 * `name` is the setting (ADMIN_TOKEN), `service` says which process refuses.
 */
export function checkDefaultSecret(options: {
  service: string;
  name: string;
  usingDefault: boolean;
  host: string;
  production: boolean;
}): string | null {
  if (!options.usingDefault) return null;
  if (options.production)
    throw new Error(
      `${options.service}: ${options.name} must be set (not the public development default) when NODE_ENV=production`,
    );
  if (!isLoopbackHost(options.host)) {
    throw new Error(
      `${options.service}: ${options.name} is the public development default while listening on ${options.host}: set ${options.name}, or bind to 127.0.0.1`,
    );
  }
  return `${options.name} is the public development default: anyone who can reach this ${options.service} can use it`;
}

/**
 * An HMAC key must be long enough that nobody can find it offline from one signed message:
 * anyone who sees a signed webhook (a log, a proxy) can test guesses at leisure. 32 bytes is
 * SHA-256's own size (RFC 2104 recommends a key at least as long as the hash output).
 */
export const MIN_WEBHOOK_SECRET_BYTES = 32;

/**
 * Throws in production when any of the secrets (a rotation lists several) is shorter than
 * `minBytes` bytes of UTF-8; elsewhere short secrets stay usable for development.
 */
export function checkSecretLength(options: {
  service: string;
  name: string;
  secrets: readonly string[];
  minBytes: number;
  production: boolean;
}): void {
  if (!options.production) return;
  const short = options.secrets.filter((secret) => new TextEncoder().encode(secret).length < options.minBytes);
  if (short.length === 0) return;
  throw new Error(
    `${options.service}: ${options.name} must be at least ${options.minBytes} bytes when NODE_ENV=production ` +
      `(${short.length} of ${options.secrets.length} listed ${short.length === 1 ? 'is' : 'are'} shorter)`,
  );
}
