import { describe, expect, it } from 'vitest';
import { clientAddressFrom, isIpAddress } from './client-address';

describe('client address behind trusted proxies', () => {
  it('uses the socket without trusted hops, whatever X-Forwarded-For says', () => {
    expect(clientAddressFrom('6.6.6.6', '10.0.0.2', 0)).toBe('10.0.0.2');
  });

  it('takes the entry the outermost trusted proxy appended, counted from the right', () => {
    // The client wrote "6.6.6.6"; proxy 1 appended the client's real address 198.51.100.7.
    expect(clientAddressFrom('6.6.6.6, 198.51.100.7', '10.0.0.2', 1)).toBe('198.51.100.7');
    // Two trusted proxies: the second appended the first's address.
    expect(clientAddressFrom('6.6.6.6, 198.51.100.7, 10.0.0.9', '10.0.0.2', 2)).toBe('198.51.100.7');
    // Several header lines are one list.
    expect(clientAddressFrom(['6.6.6.6', '198.51.100.7'], '10.0.0.2', 1)).toBe('198.51.100.7');
  });

  it('never falls back to a client-written entry', () => {
    expect(clientAddressFrom('198.51.100.7', '10.0.0.2', 2)).toBe('10.0.0.2'); // chain too short
    expect(clientAddressFrom('6.6.6.6, not-an-address', '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddressFrom(undefined, '10.0.0.2', 1)).toBe('10.0.0.2');
  });

  it('normalizes IPv4-mapped IPv6 and recognizes addresses', () => {
    expect(clientAddressFrom(undefined, '::ffff:127.0.0.1', 0)).toBe('127.0.0.1');
    expect(isIpAddress('2001:db8::1')).toBe(true);
    expect(isIpAddress('1.2.3.256')).toBe(false);
    expect(isIpAddress('evil.example')).toBe(false);
  });
});
