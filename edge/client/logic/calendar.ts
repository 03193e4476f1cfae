/**
 * An iCalendar (RFC 5545) event for a booking, so a buyer can add the showing to their
 * calendar: UTC times, escaped text, CRLF line endings, long lines folded at 75 octets.
 */
export interface CalendarBooking {
  reference: string;
  title: string;
  startsAt: string;
  /** How long to block in the calendar when the film's length is not known. */
  durationMinutes?: number;
  seats: string[];
  place?: string;
  /** The event's description in the buyer's language (the catalogue's ics.description). */
  description?: string;
}

const stamp = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

const escapeText = (text: string) =>
  text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Folds a content line: at most 75 octets a line, continuation lines start with a space. */
function fold(line: string): string {
  const bytes = new TextEncoder().encode(line);
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let current = '';
  for (const char of line) {
    const limit = parts.length === 0 ? 75 : 74;
    if (new TextEncoder().encode(current + char).length > limit) {
      parts.push(current);
      current = char;
    } else current += char;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

export function bookingCalendar(booking: CalendarBooking, now = new Date()): string {
  const start = new Date(booking.startsAt);
  const end = new Date(start.getTime() + (booking.durationMinutes ?? 150) * 60_000);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Premiere Tickets//Booking//EN',
    'CALSCALE:GREGORIAN',
    'BEGIN:VEVENT',
    `UID:${booking.reference}@premiere-tickets`,
    `DTSTAMP:${stamp(now)}`,
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(end)}`,
    `SUMMARY:${escapeText(booking.title)}`,
    `DESCRIPTION:${escapeText(booking.description ?? `Booking ${booking.reference}. Seats: ${booking.seats.join(', ')}. Show the reference at the entrance.`)}`,
    ...(booking.place ? [`LOCATION:${escapeText(booking.place)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return `${lines.map(fold).join('\r\n')}\r\n`;
}
