/**
 * The client address every per-address limit, lockout, cap, challenge and audit row is keyed
 * by. Anyone who reaches the edge can write X-Forwarded-For, so the header is read only when
 * the socket's peer is one of our own proxies (TRUST_PROXY_CIDRS). Each proxy appends the
 * address it received the request from, so the walk goes right to left: while the address in
 * hand is a trusted proxy, the entry it appended is the next one in; the first untrusted one
 * is the client. TRUST_PROXY_HOPS, when set, bounds that walk to so many entries. Whatever the
 * client wrote itself sits further left and is never reached. Addresses come out canonical
 * (lib/ip-address.ts), so one address written three ways is one client.
 * On Workers the platform's CF-Connecting-IP plays that role (worker.ts).
 */
import {
  type AddressSet,
  addressLimitKey,
  canonicalAddress,
  createAddressSet,
  isIpAddress,
} from '../../../lib/ip-address';

export { isIpAddress };

/** One form per address (lib/ip-address.ts canonicalAddress); a non-address is lower-cased as it is. */
export function normalizeAddress(address: string): string {
  return canonicalAddress(address) ?? address.toLowerCase();
}

export interface ProxyTrust {
  /** The proxies whose X-Forwarded-For entries are believed. */
  readonly proxies: AddressSet;
  /** At most this many entries are taken from the right (0: as many as trusted proxies appended). */
  readonly hops: number;
}

/** Nobody's X-Forwarded-For is believed: the socket's peer is the client. */
export const NO_PROXIES: ProxyTrust = { proxies: createAddressSet([]), hops: 0 };

export function proxyTrust(cidrs: readonly string[], hops = 0): ProxyTrust {
  return { proxies: createAddressSet(cidrs), hops };
}

/**
 * The client address given the X-Forwarded-For header(s) and the socket's peer. An untrusted
 * peer's header is ignored; a chain that ends (or holds a non-address) while the walk is still
 * among trusted proxies answers with the last trusted hop, never a client-written value.
 */
export function clientAddressFrom(
  forwardedFor: string | string[] | undefined,
  socketAddress: string | null | undefined,
  trust: ProxyTrust,
): string | null {
  let current = socketAddress ? normalizeAddress(socketAddress) : null;
  if (!current || forwardedFor === undefined || !trust.proxies.has(current)) return current;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const limit = trust.hops > 0 ? Math.min(trust.hops, entries.length) : entries.length;
  for (let taken = 0; taken < limit; taken++) {
    const entry = canonicalAddress(entries[entries.length - 1 - taken]!);
    if (!entry) return current;
    current = entry;
    if (!trust.proxies.has(current)) return current;
  }
  return current;
}

/** How the edge finds and groups client addresses: its proxies and the IPv6 prefix limits count by. */
export interface ClientAddressing {
  readonly trust: ProxyTrust;
  readonly ipv6LimitPrefix: number;
}

export function clientAddressing(cidrs: readonly string[], hops: number, ipv6LimitPrefix = 64): ClientAddressing {
  return { trust: proxyTrust(cidrs, hops), ipv6LimitPrefix };
}

/**
 * What every per-address limit counts under (flood limits, login lockout, places in line,
 * proof of work): the address, or its IPv6 network; 'unknown' when there is no address.
 */
export function limitKeyOf(address: string | null, ipv6LimitPrefix: number): string {
  return address === null ? 'unknown' : addressLimitKey(address, ipv6LimitPrefix);
}
