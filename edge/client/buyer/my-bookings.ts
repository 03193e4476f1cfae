/** data-module="my-bookings": lists the bookings this browser made, soonest showing first. */
import { localTime } from '../core/format';
import { storedBookings } from './booking-store';

export function myBookings(list: HTMLElement) {
  const bookings = storedBookings().sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
  if (bookings.length === 0) return;
  list.textContent = '';
  for (const booking of bookings) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/showtimes/${encodeURIComponent(booking.showtimeId)}`;
    link.textContent = booking.title;
    const reference = document.createElement('strong');
    reference.textContent = booking.reference;
    item.append(reference, ' · ', link, `, ${localTime(new Date(booking.startsAt), true)} · seats ${booking.seats.join(', ')} · paid ${booking.paid}`);
    list.appendChild(item);
  }
}
