/**
 * The edge's API description takes the shared response bodies from lib/api-schemas.ts and the
 * request bodies from where the routes validate them (the core's and the queue's schemas,
 * which the edge relays).
 */
import { refundPolicySchema } from '../../../core/src/bookings/booking-routes';
import { checkoutSchema } from '../../../core/src/checkout/checkout-routes';
import { fareClassChangeSchema } from '../../../core/src/fares/fare-service';
import { seatClassChangeSchema } from '../../../core/src/fares/seat-classes';
import { holdRequestSchema } from '../../../core/src/seats/hold-service';
import { roomUpdateSchema } from '../../../queue/src/room-update';

import * as schemas from '../../../lib/api-schemas';

export * from '../../../lib/api-schemas';

export const requests = {
  demoLoginRequest: schemas.demoLoginRequest,
  holdRequest: holdRequestSchema,
  checkoutRequest: checkoutSchema,
  roomUpdate: roomUpdateSchema,
  fareClassChange: fareClassChangeSchema,
  seatClassChange: seatClassChangeSchema,
  refundPolicy: refundPolicySchema,
};
