import { describe, expect, it } from 'vitest';
import { couplePartners, missingPartners } from './couple-pairs';

const seat = (code: string, row: number, column: number, type = 'couple') => ({ code, row, column, type });

describe('couple pairs', () => {
  const partners = couplePartners([
    seat('K3', 9, 3),
    seat('K1', 9, 1),
    seat('K2', 9, 2),
    seat('K4', 9, 4),
    seat('K5', 9, 5),
    seat('A1', 1, 1, 'standard'),
  ]);

  it('pair couple seats in column order within a row; a lone last seat and other types have no partner', () => {
    expect(Object.fromEntries(partners)).toEqual({ K1: 'K2', K2: 'K1', K3: 'K4', K4: 'K3' });
  });

  it('name the halves a request leaves out', () => {
    expect(missingPartners(['K1', 'K2', 'K5', 'A1'], partners)).toEqual([]);
    expect(missingPartners(['K2'], partners)).toEqual(['K1']);
    expect(missingPartners(['K4', 'K1', 'A1'], partners)).toEqual(['K2', 'K3']);
  });
});
