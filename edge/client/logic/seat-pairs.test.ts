import { describe, expect, it } from 'vitest';
import { couplePartners, toggleSeat, type PairableSeat } from './seat-pairs';

const row = (n: number, type: string, statuses: Record<number, string> = {}): PairableSeat[] =>
  Array.from({ length: 6 }, (_, i) => ({
    code: `${String.fromCharCode(64 + n)}${i + 1}`,
    row: n,
    column: i + 1,
    type,
    status: statuses[i + 1] ?? 'AVAILABLE',
  }));

describe('couple seats sold as pairs', () => {
  const seats = [...row(1, 'standard'), ...row(4, 'couple', { 4: 'BOOKED' })];
  const partners = couplePartners(seats);

  it('pairs couple seats in column order within a row, and nothing else', () => {
    expect(partners.get('D1')).toBe('D2');
    expect(partners.get('D2')).toBe('D1');
    expect(partners.get('D5')).toBe('D6');
    expect(partners.has('A1')).toBe(false);
  });

  it('choosing one half chooses both; choosing it again removes both', () => {
    const added = toggleSeat('D2', [], seats, partners, 4);
    expect(added).toEqual({ ok: true, selected: ['D1', 'D2'], added: true, codes: ['D1', 'D2'] });
    const removed = toggleSeat('D1', ['A1', 'D1', 'D2'], seats, partners, 4);
    expect(removed.ok && removed.selected).toEqual(['A1']);
  });

  it('refuses a pair whose other half is taken, and a pair that would pass the limit', () => {
    expect(toggleSeat('D3', [], seats, partners, 4)).toEqual({ ok: false, reason: 'partner_taken' });
    expect(toggleSeat('D5', ['A1', 'A2', 'A3'], seats, partners, 4)).toEqual({ ok: false, reason: 'limit' });
    expect(toggleSeat('A4', ['A1', 'A2', 'A3'], seats, partners, 4).ok).toBe(true);
    expect(toggleSeat('D4', [], seats, partners, 4)).toEqual({ ok: false, reason: 'unavailable' });
  });
});
