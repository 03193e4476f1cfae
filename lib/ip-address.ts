/**
 * IP addresses as every per-address limit needs them: parsed, in one canonical spelling, and
 * grouped. Written here rather than taken from node:net (its BlockList and SocketAddress are
 * missing on Workers, where the edge also runs) or ipaddr.js (not a dependency): the whole of
 * it is byte arrays and RFC 5952's spelling rules.
 *
 * Canonical means one spelling per address, so `2001:DB8:0:0::1`, `2001:db8::1` and
 * `2001:0db8:0000:0000:0000:0000:0000:0001` are one client: lower case, no leading zeros, the
 * longest run of two or more zero groups written `::` (the first such run on a tie), and an
 * IPv4-mapped address (`::ffff:1.2.3.4`) written as the IPv4 address it is.
 */

const IPV4_PART = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Four bytes (IPv4) or sixteen (IPv6); an IPv4-mapped IPv6 address comes back as its four. */
export type AddressBytes = Uint8Array;

function parseIpv4(text: string): AddressBytes | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => IPV4_PART.test(p))) return null;
  return Uint8Array.from(parts.map(Number));
}

function parseIpv6(text: string): AddressBytes | null {
  if (text.length > 45 || !text.includes(':')) return null;
  let head = text;
  let tail: number[] = [];
  // A dotted IPv4 tail stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    if (!groups.every((g) => HEX_GROUP.test(g))) return null;
    return groups.map((g) => Number.parseInt(g, 16));
  };
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!left || !right) return null;
  const known = left.length + right.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (known > 7) return null; // `::` stands for at least one group
    groups = [...left, ...new Array<number>(8 - known).fill(0), ...right, ...tail];
  } else {
    if (known !== 8) return null;
    groups = [...left, ...tail];
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

const isMappedIpv4 = (b: AddressBytes) =>
  b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

/**
 * The address's bytes, or null if `text` is not an IP address. A zone (`fe80::1%eth0`) is
 * dropped: it names the local interface, not the client.
 */
export function parseIpAddress(text: string): AddressBytes | null {
  const trimmed = text.trim();
  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  const unzoned = bare.includes(':') ? bare.replace(/%[0-9A-Za-z._~-]+$/, '') : bare;
  const bytes = unzoned.includes(':') ? parseIpv6(unzoned) : parseIpv4(unzoned);
  if (!bytes) return null;
  return isMappedIpv4(bytes) ? bytes.slice(12) : bytes;
}

export function isIpAddress(text: string): boolean {
  return parseIpAddress(text) !== null;
}

/** RFC 5952 spelling of an address's bytes. */
export function formatAddress(bytes: AddressBytes): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let bestStart = -1;
  let bestLength = 1; // a single zero group is written out, never `::`
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The one spelling of an address, or null if `text` is not one. */
export function canonicalAddress(text: string): string | null {
  const bytes = parseIpAddress(text);
  return bytes ? formatAddress(bytes) : null;
}

function maskTo(bytes: AddressBytes, prefixBits: number): AddressBytes {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefixBits - i * 8));
    out[i] = bytes[i]! & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

/**
 * The key a per-address limit counts under: an IPv4 address itself, an IPv6 address's
 * network of `ipv6PrefixBits` (a /64 is what one home or phone is given, so limiting per
 * full address lets one subscriber pose as 2^64 clients). Written `2001:db8:1:2::/64`.
 * A value that is not an address (say 'unknown') is returned as it is.
 */
export function addressLimitKey(address: string, ipv6PrefixBits: number): string {
  const bytes = parseIpAddress(address);
  if (!bytes) return address;
  if (bytes.length === 4 || ipv6PrefixBits >= 128) return formatAddress(bytes);
  return `${formatAddress(maskTo(bytes, ipv6PrefixBits))}/${ipv6PrefixBits}`;
}

/** A set of networks (`10.0.0.0/8`, `::1`, `fd00::/8`) an address can be tested against. */
export interface AddressSet {
  has(address: string): boolean;
  readonly size: number;
}

interface Network {
  bytes: AddressBytes;
  prefixBits: number;
}

/** Parses one CIDR (or a bare address: all its bits); throws on anything else. */
function parseCidr(text: string): Network {
  const [addressText, prefixText, ...rest] = text.trim().split('/');
  const bytes = addressText === undefined ? null : parseIpAddress(addressText);
  const width = bytes ? bytes.length * 8 : 0;
  const mappedShift = bytes && bytes.length === 4 && addressText!.includes(':') ? 96 : 0;
  const prefixBits = prefixText === undefined ? width + mappedShift : Number(prefixText) - mappedShift;
  if (
    !bytes ||
    rest.length > 0 ||
    (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) ||
    prefixBits < 0 ||
    prefixBits > width
  ) {
    throw new RangeError(`not an address or network: ${text.trim()}`);
  }
  return { bytes: maskTo(bytes, prefixBits), prefixBits };
}

/** An AddressSet from CIDR texts; throws a RangeError naming the first bad one. */
export function createAddressSet(cidrs: readonly string[]): AddressSet {
  const networks = cidrs.filter((c) => c.trim() !== '').map(parseCidr);
  return {
    size: networks.length,
    has(address) {
      const bytes = parseIpAddress(address);
      if (!bytes) return false;
      return networks.some(
        (n) => n.bytes.length === bytes.length && maskTo(bytes, n.prefixBits).every((b, i) => b === n.bytes[i]),
      );
    },
  };
}

/** Where proxies usually sit: loopback and private ranges (RFC 1918, RFC 4193, link-local). */
export const PRIVATE_NETWORKS = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
] as const;
