import { randomUUID } from 'node:crypto';
import type { BrowserStack } from './browser-stack';

/**
 * A paid booking made the way an API client makes one: demo login, join (the room admits at
 * once), hold, checkout, the gateway's approval and its webhook (the same customer again when
 * `customerToken` is given). Returns the buyer's customer
 * token and turn token with the booking.
 */
export async function bookedThroughApi(
  stack: BrowserStack,
  showtimeId: number,
  seats: string[],
  customerToken?: string,
) {
  const buyer = customerToken
    ? {
        token: customerToken,
        ...(await stack.api('POST', `/api/showtimes/${showtimeId}/queue`, { token: customerToken })).json,
      }
    : await stack.apiBuyer(showtimeId, 'ignored');
  // Admitted at once, or by the room's ticker within moments: poll as a client would.
  for (let attempt = 0; buyer.state !== 'admitted' && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    Object.assign(
      buyer,
      (await stack.api('GET', `/api/showtimes/${showtimeId}/queue`, { headers: { 'x-queue-token': buyer.queueToken } }))
        .json,
    );
  }
  if (buyer.state !== 'admitted') throw new Error(`buyer not admitted: ${buyer.state}`);
  const accessToken = buyer.accessToken as string;
  const hold = await stack.api('POST', `/api/showtimes/${showtimeId}/holds`, { token: accessToken, body: { seats } });
  if (hold.status !== 201) throw new Error(`hold refused: ${hold.status} ${JSON.stringify(hold.json)}`);
  const checkout = await stack.api('POST', `/api/holds/${hold.json.holdId}/checkout`, {
    token: accessToken,
    headers: { 'idempotency-key': randomUUID() },
  });
  if (checkout.status !== 201) throw new Error(`checkout refused: ${checkout.status} ${JSON.stringify(checkout.json)}`);
  const paymentId = checkout.json.paymentId as string;
  stack.sandbox.sandbox.service.approve(paymentId);
  await stack.sandbox.sandbox.dispatcher.idle();
  for (let attempt = 0; attempt < 100; attempt++) {
    const [row] = await stack.sql<
      { id: string; customer_id: string }[]
    >`SELECT id, customer_id FROM booking WHERE payment_id = ${paymentId} AND status = 'CONFIRMED'`;
    if (row)
      return { customerToken: buyer.token, accessToken, customerId: row.customer_id, bookingId: row.id, paymentId };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the booking was not confirmed');
}
