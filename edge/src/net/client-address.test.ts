import { describe, expect, it } from 'vitest';
import { clientAddressFrom, isIpAddress, NO_PROXIES, proxyTrust } from './client-address';

const proxies = proxyTrust(['10.0.0.0/8']);

describe('client address behind trusted proxies', () => {
  it('uses the socket without trusted proxies, whatever X-Forwarded-For says', () => {
    expect(clientAddressFrom('6.6.6.6', '10.0.0.2', NO_PROXIES)).toBe('10.0.0.2');
  });

  it("ignores an untrusted peer's X-Forwarded-For, even with a hop count set", () => {
    // The spoofing case: a client reaching the edge directly names an operator's address.
    expect(clientAddressFrom('192.0.2.10', '203.0.113.66', proxyTrust(['10.0.0.0/8'], 1))).toBe('203.0.113.66');
    expect(clientAddressFrom('192.0.2.10', '203.0.113.66', proxies)).toBe('203.0.113.66');
  });

  it("honours a trusted peer's entries, right to left, stopping at the first untrusted one", () => {
    // The client wrote "6.6.6.6"; proxy 10.0.0.2 appended the client's real address.
    expect(clientAddressFrom('6.6.6.6, 198.51.100.7', '10.0.0.2', proxies)).toBe('198.51.100.7');
    // Two proxies: the outer one (10.0.0.9) was appended by the inner one.
    expect(clientAddressFrom('6.6.6.6, 198.51.100.7, 10.0.0.9', '10.0.0.2', proxies)).toBe('198.51.100.7');
    // Several header lines are one list.
    expect(clientAddressFrom(['6.6.6.6', '198.51.100.7'], '10.0.0.2', proxies)).toBe('198.51.100.7');
    // A hop count bounds the walk.
    expect(clientAddressFrom('6.6.6.6, 198.51.100.7, 10.0.0.9', '10.0.0.2', proxyTrust(['10.0.0.0/8'], 1))).toBe(
      '10.0.0.9',
    );
  });

  it('never falls back to a client-written entry', () => {
    expect(clientAddressFrom('6.6.6.6, not-an-address', '10.0.0.2', proxies)).toBe('10.0.0.2');
    expect(clientAddressFrom(undefined, '10.0.0.2', proxies)).toBe('10.0.0.2');
    expect(clientAddressFrom('10.0.0.7', '10.0.0.2', proxies)).toBe('10.0.0.7'); // all trusted: the last hop
  });

  it('answers in one spelling, whatever the proxy or socket wrote', () => {
    expect(clientAddressFrom(undefined, '::ffff:127.0.0.1', NO_PROXIES)).toBe('127.0.0.1');
    expect(clientAddressFrom('2001:DB8:0:0::1', '10.0.0.2', proxies)).toBe('2001:db8::1');
    expect(clientAddressFrom(undefined, '2001:0db8::0001', NO_PROXIES)).toBe('2001:db8::1');
    expect(isIpAddress('1.2.3.256')).toBe(false);
  });
});
