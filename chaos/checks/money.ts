/**
 * Money from both sides. The core's rows say what the core believes; the gateway's listing says
 * what buyers were charged. Every session the gateway saw paid must have a confirmed booking,
 * or a refund the gateway itself reports done; no hold may have two paid sessions (the second
 * is refunded, but the buyer was charged twice meanwhile); and a refund counts only once the
 * gateway says refunded, not once the core has asked for it.
 */
import type { Sql } from 'postgres';
import { checkInvariants } from '../../loadtest/invariants';
import type { Check } from './check';

export interface GatewayAccess {
  url: string;
  apiKey: string;
}

export interface MoneyContext {
  sql: Sql;
  showtimeId: number;
  gateway: GatewayAccess;
}

/** A session as the sandbox's listing shows it (payment-sandbox/README.md, `GET /v1/payments`). */
export interface GatewaySession {
  id: string;
  status: 'pending' | 'succeeded' | 'failed' | 'expired' | 'refunded';
  reference: string;
  metadata: Record<string, string>;
}

const PAGE = 1000;

/** Every session the gateway keeps for the showtime (checkout stamps `metadata.showtimeId`). */
export async function gatewaySessions(gateway: GatewayAccess, showtimeId: number): Promise<GatewaySession[]> {
  const sessions: GatewaySession[] = [];
  let after: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const query = new URLSearchParams({ limit: String(PAGE), ...(after ? { startingAfter: after } : {}) });
    const response = await fetch(`${gateway.url}/v1/payments?${query}`, {
      headers: { authorization: `Bearer ${gateway.apiKey}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 200) throw new Error(`gateway listing answered ${response.status}`);
    const body = (await response.json()) as { data: GatewaySession[]; hasMore: boolean };
    sessions.push(...body.data.filter((s) => s.metadata?.showtimeId === String(showtimeId)));
    if (!body.hasMore || body.data.length === 0) return sessions;
    after = body.data[body.data.length - 1]!.id;
  }
  throw new Error('gateway listing did not end');
}

export const moneyCheck: Check<MoneyContext> = {
  name: 'money',
  async run({ sql, showtimeId, gateway }) {
    const sessions = await gatewaySessions(gateway, showtimeId);
    const charged = sessions.filter((s) => s.status === 'succeeded' || s.status === 'refunded');
    const rows = await sql<{ id: string; status: string; refund_asked: boolean; booked: boolean }[]>`
      SELECT p.id, p.status,
             (p.status IN ('REFUND_REQUESTED', 'REFUNDED') OR EXISTS (SELECT 1 FROM refund_command r WHERE r.payment_id = p.id)) AS refund_asked,
             EXISTS (SELECT 1 FROM booking b WHERE b.payment_id = p.id AND b.status = 'CONFIRMED') AS booked
        FROM payment p WHERE p.showtime_id = ${showtimeId}`;
    const core = new Map(rows.map((row) => [row.id, row]));
    const atGateway = new Map(sessions.map((s) => [s.id, s]));
    const paidPerHold = new Map<string, number>();
    for (const s of charged) paidPerHold.set(s.reference, (paidPerHold.get(s.reference) ?? 0) + 1);
    const { counts } = await checkInvariants(sql, { showtimeIds: [showtimeId] });
    return {
      // The core's own view: a succeeded payment with neither booking nor refund command.
      paidWithoutBookingOrRefund: counts.paidWithoutBookingOrRefund,
      // Charged and still charged at the gateway, with no confirmed booking for that payment.
      gatewayPaidWithoutBooking: sessions.filter((s) => s.status === 'succeeded' && !core.get(s.id)?.booked).length,
      // Charged at the gateway, never recorded by the core (a crash between the two).
      chargesUnknownToCore: charged.filter((s) => !core.has(s.id)).length,
      holdsPaidTwice: [...paidPerHold.values()].filter((n) => n > 1).length,
      // The core asked for a refund (or thinks it done); the gateway has not refunded.
      refundsNotConfirmedByGateway: rows.filter(
        (row) => row.refund_asked && atGateway.get(row.id)?.status !== 'refunded',
      ).length,
    };
  },
};
