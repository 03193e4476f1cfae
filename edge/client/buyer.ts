/** The buyer's pages' one script: each component enhances the element that names it. */
import { initAll, onReady } from './core/modules';
import { salePage } from './buyer/sale-page';
import { myBookings } from './buyer/my-bookings';
import { showtimeList } from './buyer/showtime-list';

onReady(() => initAll({ 'sale-page': salePage, 'showtime-list': showtimeList, 'my-bookings': myBookings }));
