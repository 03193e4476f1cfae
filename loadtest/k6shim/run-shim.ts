/**
 * Runs a k6 script's exec function in a worker thread on the k6 shims (see worker.js), while
 * this thread performs its HTTP requests: k6 itself is not installed here, so this is how the
 * tests exercise the k6 scripts' own code (setup, the buyer multiplexing, metrics, teardown,
 * handleSummary) against a real stack. It is not a load generator: one VU, one request at a time.
 */
import { Worker } from 'node:worker_threads';

export interface ShimRun {
  ran: number;
  /** Wall time of the exec iterations (requests included). */
  execMs: number;
  /** Of that, the script's own work: neither waiting on answers nor sleeping (the shim's CPU per request). */
  scriptMs: number;
  /** Wall time of the drain scenario's iteration (it is paced: buyers leave one after another). */
  drainMs: number;
  setupData: any;
  options: any;
  exports: string[];
  summaryKeys: string[];
  /** The text handleSummary() puts on stdout. */
  summaryStdout: string | null;
  metrics: Record<string, { type: string; count: number; sum: number; max: number | null }>;
  http: Record<string, Record<string, number>>;
  failures: string[];
}

interface HttpMessage {
  type: 'http';
  request: { method: string; url: string; headers: Record<string, string>; body: string | null; timeoutMs: number };
  shared: SharedArrayBuffer;
}

async function perform(message: HttpMessage): Promise<void> {
  const { request, shared } = message;
  let answer: { status: number; headers: Record<string, string>; body: string };
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== null ? { body: request.body } : {}),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    answer = { status: response.status, headers, body: await response.text() };
  } catch {
    answer = { status: 0, headers: {}, body: '' };
  }
  const encoded = new TextEncoder().encode(JSON.stringify(answer));
  const flag = new Int32Array(shared, 0, 2);
  new Uint8Array(shared, 8).set(encoded);
  Atomics.store(flag, 1, encoded.length);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

export interface ShimPhases {
  iterations: number;
  maxMs: number;
  /** Run setup() here (default), or take `data` from another worker's setup. */
  setup?: boolean;
  data?: unknown;
  /** Run the script's drain scenario after the iterations (default true). */
  drain?: boolean;
  /** Run teardown() and handleSummary() (default true). */
  teardown?: boolean;
}

export function runK6Script(
  script: string,
  exec: string | null,
  env: Record<string, string>,
  phases: ShimPhases,
): Promise<ShimRun> {
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: {
      script: new URL(`../${script}`, import.meta.url).href,
      exec,
      env,
      setup: true,
      drain: true,
      teardown: true,
      data: null,
      ...phases,
    },
    execArgv: [],
  });
  return new Promise((resolve, reject) => {
    worker.on('message', (message: HttpMessage | ({ type: 'done' } & ShimRun)) => {
      if (message.type === 'http') void perform(message);
      else {
        resolve(message);
        void worker.terminate();
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => code !== 0 && code !== 1 && reject(new Error(`k6 shim worker exited with ${code}`)));
  });
}
