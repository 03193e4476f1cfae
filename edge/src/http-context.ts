/** Request-scoped values the edge's middleware sets and its handlers read. */
import type { Context } from 'hono';
import type { AccessClaims } from '../../lib/access-token';
import type { TraceContext } from '../../lib/trace-context';
import type { Operator } from './pages/admin-session';

export interface EdgeVariables {
  requestId: string;
  /** The W3C trace this request belongs to, with the edge's own span (middleware/request-id.ts). */
  trace: TraceContext;
  access: AccessClaims;
  /** The verified access token itself (Bearer or cookie), forwarded to the core. */
  accessToken: string;
  /** The customer the purchase gates verified (access token or customer token): per-customer bounds key on it. */
  customerId: string;
  /** The authenticated operator on /api/admin routes and /metrics (middleware/admin-auth.ts). */
  operator: Operator;
}

export type EdgeEnv = { Variables: EdgeVariables };
export type EdgeContext = Context<EdgeEnv>;

export { bearerToken } from '../../lib/http';

/** Showtime ids are the core's numeric ids; anything else is not a route we serve. */
export const SHOWTIME_ID = /^\d{1,15}$/;

/** Cookie names: browsers get the same tokens the API clients send as headers. */
export const cookieNames = {
  customer: 'wr_customer',
  queue: (showtimeId: string) => `wr_q_${showtimeId}`,
  access: (showtimeId: string) => `wr_a_${showtimeId}`,
};

export const isHttps = (c: Context) =>
  new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
