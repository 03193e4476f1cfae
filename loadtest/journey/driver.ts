/**
 * Drives N virtual buyers through the shared journey (loadtest/lib/journey.js) over keep-alive
 * node:http connections: arrivals ramp up over `rampSeconds` (the arrival rate grows linearly),
 * each buyer waits for its next step as the journey says (pollAfterMs, Retry-After, think time),
 * and the run ends when every buyer is done or at `durationSeconds`, whichever comes first.
 * At that moment no buyer is abandoned mid-journey: each gives back what it holds (an unpaid
 * hold is cancelled, the line or the room is left, a paid buyer reads its booking), within
 * `drainSeconds`, as the k6 scripts' drain scenario does.
 */
import { Agent, request as httpRequest } from 'node:http';
import { applyResponse, closeIdle, newBuyer, nextRequest, startLeaving } from '../lib/journey.js';
import type { Buyer, JourneyRequest, JourneyResponse, JourneySettings } from '../lib/journey.js';
import type { Recorder } from './recorder';

export interface DriverOptions {
  edgeUrl: string;
  paymentsUrl: string;
  buyers: number;
  rampSeconds: number;
  durationSeconds: number;
  journey: JourneySettings;
  recorder: Recorder;
  requestTimeoutMs?: number;
  /** How long buyers still in a journey at the deadline have to give back what they hold (15 s). */
  drainSeconds?: number;
  /** Every answer as the buyer saw it (the fault suite counts error codes from it). */
  onAnswer?: (endpoint: string, response: JourneyResponse, nowMs: number) => void;
  /** Called once a second while the run lasts (progress line, sampler). */
  onTick?: (state: { elapsedMs: number; active: number; done: number }) => void | Promise<void>;
}

function send(agent: Agent, baseUrl: string, req: JourneyRequest, timeoutMs: number): Promise<JourneyResponse> {
  const url = new URL(req.path, baseUrl);
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== null) headers['content-length'] = Buffer.byteLength(req.body);
    const outgoing = httpRequest(url, { method: req.method, headers, agent, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        let json: unknown = null;
        try {
          json = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
        } catch {
          json = null;
        }
        const retryAfter = Number(response.headers['retry-after']);
        resolve({
          status: response.statusCode ?? 0,
          json,
          retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null,
        });
      });
      response.on('error', () => resolve({ status: 0, json: null, retryAfterSeconds: null }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', () => resolve({ status: 0, json: null, retryAfterSeconds: null }));
    outgoing.end(req.body ?? undefined);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface DriverResult {
  buyers: Buyer[];
  elapsedMs: number;
  stoppedAtDeadline: boolean;
}

export async function runBuyers(options: DriverOptions): Promise<DriverResult> {
  const { recorder, journey } = options;
  const startedAt = Date.now();
  const deadline = startedAt + options.durationSeconds * 1000;
  const drainDeadline = deadline + (options.drainSeconds ?? 15) * 1000;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const buyers: Buyer[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 512 });
  let active = 0;
  let done = 0;
  let stopping = false;

  async function runBuyer(index: number): Promise<void> {
    // Linear growth of the arrival rate: the i-th of N arrives at ramp · sqrt(i / N).
    const arriveAt = startedAt + options.rampSeconds * 1000 * Math.sqrt(index / Math.max(1, options.buyers));
    await sleep(Math.max(0, arriveAt - Date.now()));
    if (Date.now() >= deadline) return;
    const buyer = newBuyer(index, Date.now());
    buyers.push(buyer);
    active++;
    try {
      for (;;) {
        if (!buyer.stopping && Date.now() >= deadline) {
          stopping = true;
          startLeaving(buyer, Date.now());
        }
        const req = nextRequest(buyer, journey);
        if (!req) {
          for (const event of closeIdle(buyer)) recorder.event(event.type, event.value, Date.now());
          break;
        }
        const wait = buyer.dueAt - Date.now();
        if (wait > 0)
          await sleep(Math.max(0, Math.min(wait, (buyer.stopping ? drainDeadline : deadline) - Date.now())));
        if (!buyer.stopping && Date.now() >= deadline) continue; // the deadline came while waiting: leave instead
        if (Date.now() >= drainDeadline) break;
        const base = req.target === 'payments' ? options.paymentsUrl : options.edgeUrl;
        const sentAt = performance.now();
        recorder.sent(req.endpoint, Date.now());
        const res = await send(agent, base, req, timeoutMs);
        const now = Date.now();
        recorder.answered(req.endpoint, res.status, performance.now() - sentAt, now);
        options.onAnswer?.(req.endpoint, res, now);
        for (const event of applyResponse(buyer, journey, res, now)) recorder.event(event.type, event.value, now);
      }
    } finally {
      active--;
      done++;
    }
  }

  const ticker = setInterval(() => {
    void options.onTick?.({ elapsedMs: Date.now() - startedAt, active, done });
  }, 1000);
  try {
    await Promise.all(Array.from({ length: options.buyers }, (_, index) => runBuyer(index)));
  } finally {
    clearInterval(ticker);
    agent.destroy();
  }
  return { buyers, elapsedMs: Date.now() - startedAt, stoppedAtDeadline: stopping };
}
