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
export function checkDefaultSecret(options: { service: string; name: string; usingDefault: boolean; host: string; production: boolean }): string | null {
  if (!options.usingDefault) return null;
  if (options.production) throw new Error(`${options.service}: ${options.name} must be set (not the public development default) when NODE_ENV=production`);
  if (!isLoopbackHost(options.host)) {
    throw new Error(`${options.service}: ${options.name} is the public development default while listening on ${options.host}: set ${options.name}, or bind to 127.0.0.1`);
  }
  return `${options.name} is the public development default: anyone who can reach this ${options.service} can use it`;
}
