import { describe, expect, it } from 'vitest';
import { addressLimitKey, canonicalAddress, createAddressSet, isIpAddress, PRIVATE_NETWORKS } from './ip-address';

describe('canonical addresses', () => {
  it('spells one IPv6 address one way (RFC 5952)', () => {
    const spellings = ['2001:DB8:0:0::1', '2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001'];
    expect(new Set(spellings.map(canonicalAddress))).toEqual(new Set(['2001:db8::1']));
    expect(canonicalAddress('2001:db8:0:1:0:0:0:1')).toBe('2001:db8:0:1::1'); // longest zero run
    expect(canonicalAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1'); // first on a tie
    expect(canonicalAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1'); // one zero group stays
    expect(canonicalAddress('::')).toBe('::');
    expect(canonicalAddress('::1')).toBe('::1');
    expect(canonicalAddress('[2001:db8::1]')).toBe('2001:db8::1');
    expect(canonicalAddress('fe80::1%eth0')).toBe('fe80::1');
  });

  it('writes IPv4-mapped IPv6 as IPv4, and leaves IPv4 alone', () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('::FFFF:7f00:1')).toBe('127.0.0.1');
    expect(canonicalAddress('0:0:0:0:0:ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(canonicalAddress('198.51.100.7')).toBe('198.51.100.7');
    expect(canonicalAddress('64:ff9b::1.2.3.4')).toBe('64:ff9b::102:304');
  });

  it('refuses what is not an address', () => {
    for (const bad of [
      '',
      '1.2.3.256',
      '01.2.3.4',
      '1.2.3',
      'evil.example',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      ':::',
      'g::1',
      '1:2:3:4:5:6:7::8:9',
    ]) {
      expect(isIpAddress(bad), bad).toBe(false);
    }
  });
});

describe('limit keys', () => {
  it('groups IPv6 by its /64 and keeps IPv4 whole', () => {
    const keys = Array.from({ length: 30 }, (_, i) => addressLimitKey(`2001:db8:1:2::${(i + 1).toString(16)}`, 64));
    expect(new Set(keys)).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(addressLimitKey('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3::/64');
    expect(addressLimitKey('2001:db8:1:2:ffff::1', 56)).toBe('2001:db8:1::/56');
    expect(addressLimitKey('2001:db8::1', 128)).toBe('2001:db8::1');
    expect(addressLimitKey('198.51.100.7', 64)).toBe('198.51.100.7');
    expect(addressLimitKey('unknown', 64)).toBe('unknown');
  });
});

describe('address sets', () => {
  it('matches networks of either family, and mapped IPv4 as IPv4', () => {
    const set = createAddressSet(['10.0.0.0/8', '2001:db8:ff::/48', '192.0.2.1']);
    expect(set.has('10.200.3.4')).toBe(true);
    expect(set.has('::ffff:10.1.1.1')).toBe(true);
    expect(set.has('11.0.0.1')).toBe(false);
    expect(set.has('2001:DB8:FF:1::9')).toBe(true);
    expect(set.has('2001:db8:fe::1')).toBe(false);
    expect(set.has('192.0.2.1')).toBe(true);
    expect(set.has('192.0.2.2')).toBe(false);
    expect(set.has('not-an-address')).toBe(false);
    expect(createAddressSet(PRIVATE_NETWORKS).has('172.31.0.1')).toBe(true);
    expect(createAddressSet(PRIVATE_NETWORKS).has('172.32.0.1')).toBe(false);
  });

  it('throws on a bad network', () => {
    for (const bad of ['10.0.0.0/33', '10.0.0.0/x', 'nope/8', '::/129', '1.2.3.4/8/9']) {
      expect(() => createAddressSet([bad]), bad).toThrow(RangeError);
    }
  });
});
