import { describe, expect, it } from 'vitest';
import { isCostly, lagSampler, retryAfterSecondsFor } from './load-shedding';

describe('load shedding', () => {
  it('counts a lag only when two timer samples in a row were late: one pause is not load', () => {
    const lag = lagSampler(500);
    lag.sample(2_000);
    expect(lag).toMatchObject({ lagMs: 0, shedding: false, pressed: false });
    lag.sample(3);
    expect(lag).toMatchObject({ lagMs: 3, shedding: false, pressed: false });
    lag.sample(800);
    lag.sample(600);
    expect(lag).toMatchObject({ lagMs: 600, shedding: true, pressed: true });
    lag.sample(200);
    expect(lag).toMatchObject({ lagMs: 200, shedding: false, pressed: true });
    lag.sample(0);
    expect(lag).toMatchObject({ lagMs: 0, shedding: false, pressed: false });
  });

  it('never sheds with the threshold at 0, and still keeps the lag', () => {
    const lag = lagSampler(0);
    lag.sample(5_000);
    lag.sample(5_000);
    expect(lag).toMatchObject({ lagMs: 5_000, shedding: false, pressed: false });
  });

  it('asks shed clients to come back after a second more than the lag, 1 to 10 s', () => {
    expect([0, 400, 999, 1_000, 1_001, 4_500, 60_000].map(retryAfterSecondsFor)).toEqual([1, 2, 2, 2, 3, 6, 10]);
  });

  it('sheds joins and purchases, not polls, leaves, health, cached reads, the payment callback or operators', () => {
    const costly: [string, string][] = [
      ['POST', '/api/showtimes/42/queue'],
      ['POST', '/api/showtimes/42/queue?x=1'],
      ['POST', '/api/showtimes/42/holds'],
      ['POST', '/api/holds/hold-1/checkout'],
      ['POST', '/api/auth/demo'],
      ['GET', '/api/holds/hold-1'],
      ['DELETE', '/api/holds/hold-1'],
      ['GET', '/api/bookings'],
      ['GET', '/api/bookings/b-1'],
      ['GET', '/api/bookings/b-1/cancellation'],
      ['DELETE', '/api/bookings/b-1'],
    ];
    const cheap: [string, string][] = [
      ['GET', '/api/showtimes/42/queue'],
      ['DELETE', '/api/showtimes/42/queue'],
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/metrics'],
      ['GET', '/api/showtimes'],
      ['GET', '/api/showtimes/42/seats'],
      ['POST', '/api/payments/callback'],
      ['PUT', '/api/admin/showtimes/42/room'],
      ['GET', '/showtimes/42'],
      // Shapes the routes refuse themselves (404), cheaply.
      ['POST', '/api/showtimes/abc/queue'],
      ['POST', '/api/showtimes/42/queue/extra'],
    ];
    for (const [method, url] of costly) expect(isCostly(method, url), `${method} ${url}`).toBe(true);
    for (const [method, url] of cheap) expect(isCostly(method, url), `${method} ${url}`).toBe(false);
  });
});
