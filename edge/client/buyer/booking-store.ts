/**
 * The bookings this browser has made, kept in localStorage at confirmation so "My bookings"
 * can list them without an account. The server's booking stays the truth; this is a memo.
 */
export interface StoredBooking {
  reference: string;
  showtimeId: string;
  title: string;
  startsAt: string;
  seats: string[];
  paid: string;
  bookedAt: string;
}

const KEY = 'wr-bookings';
const KEEP = 50;

export function storedBookings(): StoredBooking[] {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as StoredBooking[]) : [];
  } catch {
    return [];
  }
}

export function rememberBooking(booking: StoredBooking) {
  const others = storedBookings().filter((b) => b.reference !== booking.reference);
  try {
    localStorage.setItem(KEY, JSON.stringify([booking, ...others].slice(0, KEEP)));
  } catch {
    // Storage full or off (private mode): the confirmation on screen is what counts.
  }
}
