/**
 * The client address every per-address limit, lockout and cap is keyed by. Behind proxies
 * only the entries our own proxies appended to X-Forwarded-For can be trusted: each hop
 * appends the address it received the request from, so with `hops` trusted proxies the
 * client is the entry `hops` places from the right. Whatever the client wrote itself sits
 * further left and never counts. Without trusted hops the socket address is the answer.
 * On Workers the platform's CF-Connecting-IP plays that role (worker.ts).
 */

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** A textual IPv4 or IPv6 address (what a proxy writes); anything else is not an address. */
export function isIpAddress(value: string): boolean {
  return IPV4.test(value) || (value.includes(':') && IPV6.test(value));
}

/** One form per address: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes plain IPv4. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/**
 * The client address given the X-Forwarded-For header(s) and the socket's peer. With
 * `trustedHops` > 0 the entry appended by the outermost trusted proxy wins; if the chain is
 * shorter than the configured hops (the request bypassed a proxy) or that entry is not an
 * address, the socket's peer is used, never a client-written value.
 */
export function clientAddressFrom(
  forwardedFor: string | string[] | undefined,
  socketAddress: string | null | undefined,
  trustedHops: number,
): string | null {
  const socket = socketAddress ? normalizeAddress(socketAddress) : null;
  if (trustedHops <= 0 || forwardedFor === undefined) return socket;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length < trustedHops) return socket;
  const candidate = entries[entries.length - trustedHops]!;
  return isIpAddress(candidate) ? normalizeAddress(candidate) : socket;
}
