import { describe, expect, it } from 'vitest';
import { bookingCalendar } from './calendar';

describe('booking calendar (.ics)', () => {
  it('is one VEVENT in UTC with escaped text and CRLF lines of at most 75 octets', () => {
    const ics = bookingCalendar(
      {
        reference: 'BK-1A2B3C4D',
        title: 'Dune; Part Two, the premiere',
        startsAt: '2026-12-12T19:30:00.000Z',
        seats: ['F5', 'F6'],
      },
      new Date('2026-12-01T10:00:00Z'),
    );
    const lines = ics.split('\r\n');
    expect(lines[0]).toBe('BEGIN:VCALENDAR');
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(ics).not.toMatch(/[^\r]\n/);
    expect(lines).toContain('DTSTART:20261212T193000Z');
    expect(lines).toContain('DTEND:20261212T220000Z');
    expect(lines).toContain('DTSTAMP:20261201T100000Z');
    expect(lines).toContain('SUMMARY:Dune\\; Part Two\\, the premiere');
    for (const line of lines) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75);
    // Unfolded, the description is whole again.
    expect(ics.replace(/\r\n /g, '')).toContain(
      'DESCRIPTION:Booking BK-1A2B3C4D. Seats: F5\\, F6. Show the reference at the entrance.',
    );
  });
});
