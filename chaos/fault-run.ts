/**
 * One fault run: a fresh sale, a crowd of buyers, the fault injected while they buy, the time
 * until buyers are served again measured beside the control probe, and what the checks need
 * (acknowledged writes, cap samples, settings before and after).
 */
import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { runBuyers } from '../loadtest/journey/driver';
import { Recorder } from '../loadtest/journey/recorder';
import { createSale } from '../loadtest/journey/setup';
import type { JourneySettings } from '../loadtest/lib/journey.js';
import type { CapSamples, RoomContext } from './checks/room';
import type { ControlProbe } from './control-probe';
import { FRESH_COPY_MS, type Fault } from './faults';
import { durableRoomSettings, showtimeSoldOut, type RoomSettings } from './room-settings';
import type { ChaosStack } from './stack';

export interface FaultRunSettings {
  buyers: number;
  rows: number;
  columns: number;
  capacity: number;
  admitPerMinute: number;
  sessionTtlSeconds: number;
  holdTtlMs: number;
  rampSeconds: number;
  durationSeconds: number;
  /** When the fault starts, after the first buyers arrived. */
  injectAtMs: number;
  outageMs: number;
  stallMs: number;
  /** Longest wait for the buyers' path after the component is back, beyond the machine's lag. */
  recoveryGoalMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function roomCall(
  stack: ChaosStack,
  showtimeId: string,
  method: 'GET' | 'PUT',
  body?: unknown,
): Promise<RoomSettings | null> {
  // A few tries: a saturated edge may answer late.
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const response = await fetch(`${stack.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, {
        method,
        signal: AbortSignal.timeout(5_000),
        headers: {
          authorization: `Bearer ${stack.adminToken}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status === 200) return ((await response.json()) as { settings?: RoomSettings }).settings ?? null;
    } catch {
      // timed out or refused: try again
    }
    await sleep(500);
  }
  return null;
}

/**
 * The first whole second of the recorder's clock after `ms`: bookings from it on are the work a
 * fault run did after its component was back, which bookings made before cannot stand in for.
 * A booking in the second the component came back is not counted.
 */
export const firstSecondAfter = (recorder: Pick<Recorder, 'startedAtMs'>, ms: number) =>
  Math.max(0, Math.ceil((ms - recorder.startedAtMs) / 1000));

/** Bookings from `second` on, in a run's bookings per second. */
export const bookedFrom = (bookedPerSecond: number[], second: number) =>
  bookedPerSecond.slice(second).reduce((sum, n) => sum + n, 0);

/** Polls `recovered` from `backAt`, probing the control in the same instant; bounded at 30 s. */
async function measureRecovery(
  stack: ChaosStack,
  showtimeId: string,
  fault: Fault,
  control: ControlProbe,
  backAt: number,
) {
  let machineLagMs = 0;
  while (Date.now() - backAt < 30_000) {
    // Recovered as of when the successful probe was sent: on a saturated machine its own
    // answer may take a while, and that is load, not the fault.
    const probeSentAt = Date.now();
    const [ok, controlMs] = await Promise.all([fault.recovered!(stack, showtimeId), control.probe()]);
    machineLagMs = Math.max(machineLagMs, Math.round(controlMs));
    if (ok) {
      const ms = probeSentAt - backAt;
      return { ms, machineLagMs };
    }
    await sleep(100);
  }
  return { ms: null, machineLagMs };
}

export async function runBuyersThroughFault(deps: {
  stack: ChaosStack;
  sql: Sql;
  redis: Redis;
  control: ControlProbe;
  fault: Fault;
  settings: FaultRunSettings;
  samplers: (showtimeId: string) => { stop(): Promise<{ redis: CapSamples; ledger: CapSamples }> };
}) {
  const { stack, fault, settings } = deps;
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl,
    edgeUrl: stack.edgeUrl,
    adminToken: stack.adminToken,
    serviceToken: stack.serviceToken,
    rows: settings.rows,
    columns: settings.columns,
    holdTtlMs: settings.holdTtlMs,
    capacity: settings.capacity,
    admitPerMinute: settings.admitPerMinute,
    sessionTtlSeconds: settings.sessionTtlSeconds,
  });
  const before = await roomCall(stack, showtimeId, 'GET');
  let durableBefore = await durableRoomSettings(deps.sql, Number(showtimeId));
  const recorder = new Recorder();
  const answers: Record<string, number> = {};
  const acknowledged = { holdIds: [] as string[], paymentIds: [] as string[] };
  const sampling = deps.samplers(showtimeId);
  const journey: JourneySettings = {
    showtimeId,
    party: 2,
    maxHoldTries: 3,
    seatPreference: 'random',
    paymentApiKey: stack.paymentApiKey,
    maxWaitMs: settings.durationSeconds * 1000,
    random: Math.random,
  };
  const buying = runBuyers({
    edgeUrl: stack.edgeUrl,
    paymentsUrl: stack.paymentsUrl,
    buyers: settings.buyers,
    rampSeconds: settings.rampSeconds,
    durationSeconds: settings.durationSeconds,
    journey,
    recorder,
    requestTimeoutMs: 8_000,
    onAnswer: (endpoint, response) => {
      const code = (response.json as { error?: { code?: string } } | null)?.error?.code;
      const key = `${endpoint} ${response.status === 0 ? 'no answer' : response.status}${code ? ` ${code}` : ''}`;
      answers[key] = (answers[key] ?? 0) + 1;
      // What a buyer was told exists must still exist after any fault.
      const body = response.json as { holdId?: string; paymentId?: string } | null;
      if (response.status === 201 && endpoint === 'hold' && body?.holdId) acknowledged.holdIds.push(body.holdId);
      if (response.status === 201 && endpoint === 'checkout' && body?.paymentId)
        acknowledged.paymentIds.push(body.paymentId);
    },
  });

  await sleep(settings.injectAtMs);
  const faultBeganAt = Date.now();
  if (fault.pausedRoom) await roomCall(stack, showtimeId, 'PUT', { state: 'paused' });
  const injected = await fault.inject(stack, { outageMs: settings.outageMs, stallMs: settings.stallMs });
  const backAt = Date.now();
  // An answer the edge may have cached before the fault proves nothing about recovery.
  await sleep(Math.max(0, faultBeganAt + FRESH_COPY_MS - backAt));
  const recovery = fault.recovered ? await measureRecovery(stack, showtimeId, fault, deps.control, backAt) : null;
  let paused: RoomContext['paused'] = null;
  if (fault.pausedRoom) {
    // The pause lives in PostgreSQL: a room Redis lost must come back paused, then the operator resumes it.
    paused = { stateAfterFault: ((await roomCall(stack, showtimeId, 'GET'))?.state as string | undefined) ?? null };
    await roomCall(stack, showtimeId, 'PUT', { state: 'open' });
    // The operator's own changes move the durable row's version: compare from their last one.
    durableBefore = await durableRoomSettings(deps.sql, Number(showtimeId));
  }
  await buying;
  const cap = await sampling.stop();
  const figures = injected?.figures ? await injected.figures : {};
  return {
    showtimeId,
    answers,
    acknowledged,
    cap,
    recovery,
    paused,
    bookings: recorder.counters.get('booked') ?? 0,
    /** Bookings per second of the run, and the first second after the component was back. */
    bookedPerSecond: recorder.seconds.map((second) => second.booked),
    backSecond: firstSecondAfter(recorder, backAt),
    notFired: injected?.notFired ?? null,
    figures,
    /** Settings now, for the settings check (the durable row is compared with its copy from the start). */
    async settingsAfter(): Promise<RoomContext['settings']> {
      return {
        before,
        after: await roomCall(stack, showtimeId, 'GET'),
        durableBefore,
        durableAfter: await durableRoomSettings(deps.sql, Number(showtimeId)),
        soldOut: await showtimeSoldOut(deps.sql, Number(showtimeId)),
      };
    },
  };
}
