import { describe, expect, it } from 'vitest';
import { positionIsNews, progressShare } from './progress';
import { saleStateFromQueue, stateInList, isBuyable } from './sale-state';

describe('progress and announcements', () => {
  it('measures progress from the kept starting place, never an empty bar', () => {
    expect(progressShare(101, 101)).toBe(0.02);
    expect(progressShare(101, 51)).toBe(0.5);
    expect(progressShare(101, 1)).toBe(1);
    expect(progressShare(1, 1)).toBe(1);
  });

  it('announces the first place, every place in the last ten, and tenths of the way before that', () => {
    expect(positionIsNews(null, 500)).toBe(true);
    expect(positionIsNews(500, 500)).toBe(false);
    expect(positionIsNews(500, 480)).toBe(false);
    expect(positionIsNews(500, 450)).toBe(true);
    expect(positionIsNews(11, 10)).toBe(true);
    expect(positionIsNews(3, 2)).toBe(true);
  });
});

describe('sale state', () => {
  it('maps queue states to the sale, and a showtime that left the list to closed', () => {
    expect(saleStateFromQueue('paused')).toBe('paused');
    expect(saleStateFromQueue('waiting')).toBe('on_sale');
    expect(saleStateFromQueue('expired')).toBeNull();
    expect(stateInList([{ id: 7, saleState: 'paused' }], '7')).toBe('paused');
    expect(stateInList([{ id: 7, saleState: 'paused' }], '8')).toBe('closed');
    // A full list may simply not reach this showtime: no news rather than "closed".
    const full = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, saleState: 'on_sale' }));
    expect(stateInList(full, '500')).toBeNull();
    expect(stateInList(full, '50')).toBe('on_sale');
    expect(['on_sale', 'paused', 'closed', 'sold_out', 'opening_soon'].filter(isBuyable)).toEqual(['on_sale']);
  });
});
