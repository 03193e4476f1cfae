import { describe, expect, it } from 'vitest';
import { describeLookup } from './queue-id-search';

const base = {
  queueId: 'K7QM-2XPD',
  ticket: 12,
  lineLength: 40,
  customerId: 'c-9',
  position: null,
  turnExpiresAt: null,
};

describe('what support reads about a queue id', () => {
  it('says where the buyer stands, in one sentence', () => {
    expect(describeLookup({ ...base, status: 'waiting', position: 7 })).toBe(
      'K7QM-2XPD (customer c-9) is waiting in line: number 7 of 40.',
    );
    expect(describeLookup({ ...base, status: 'admitted', turnExpiresAt: '2030-01-01T12:00:00Z' })).toMatch(
      /^K7QM-2XPD \(customer c-9\) has been let in and is choosing seats until .+\.$/,
    );
    expect(describeLookup({ ...base, status: 'not_in_line', customerId: null })).toMatch(
      /^K7QM-2XPD is no longer in line: .+ They can join again\.$/,
    );
  });
});
