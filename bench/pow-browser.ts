/**
 * `npm run bench -- pow-browser [--difficulties=14,15,16,17,18] [--trials=12] [--throttle=4]`
 *
 * What proof of work at join costs a buyer whose phone is slower than this machine: the page's
 * own solver (edge/client/pow/sha256.ts, in the short slices the page uses when it has no Web
 * Worker) solving fresh challenges in headless Chromium with the CPU slowed down `throttle`
 * times through the DevTools protocol (Emulation.setCPUThrottlingRate, which slows the page's
 * main thread; the slices run there, so every hash is throttled). For each difficulty: the
 * median and the worst time of `trials` challenges; the search is a geometric race, so the
 * worst is several times the median. The operator ceiling (POW_OPERATOR_MAX_BITS in
 * lib/room-settings-registry.ts) is the highest difficulty whose worst stays under about
 * five seconds, the most a waiting page can honestly call "a few seconds".
 * Next to it, the physical limit: raw SHA-256 per second of node:crypto on this machine.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function option(args: string[], name: string, fallback: string): string {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
}

/** The page's solver, bundled for the page: solves in slices of 2,000 nonces, like solveOnPage. */
async function solverScript(): Promise<string> {
  const built = await build({
    stdin: {
      contents: `
        import { searchNonces } from './edge/client/pow/sha256';
        window.solveTimed = (challenge, difficulty) => new Promise((resolve) => {
          const started = performance.now();
          let from = 0;
          const slice = () => {
            const nonce = searchNonces(challenge, difficulty, from, 2000);
            if (nonce !== null) return resolve({ ms: performance.now() - started, hashes: parseInt(nonce, 36) + 1 });
            from += 2000;
            setTimeout(slice, 0);
          };
          slice();
        });`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2022',
  });
  return built.outputFiles[0]!.text;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export default async function powBrowser(args: string[]) {
  const difficulties = option(args, 'difficulties', '14,15,16,17,18').split(',').map(Number);
  const trials = Number(option(args, 'trials', '12'));
  const throttle = Number(option(args, 'throttle', '4'));
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);

  // Physical limit: raw SHA-256 of a challenge-sized text, node:crypto, one core.
  const text = `v2.1.17.1700000000000.${'a'.repeat(22)}.${'b'.repeat(22)}.${'c'.repeat(43)}:`;
  let hashes = 0;
  const started = performance.now();
  while (performance.now() - started < 1_000) {
    for (let k = 0; k < 1_000; k++)
      createHash('sha256')
        .update(text + (hashes++).toString(36))
        .digest();
  }
  const nodeRate = hashes / ((performance.now() - started) / 1000);

  const script = await solverScript();
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><title>pow bench</title><script>${script}</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
    console.log(`headless Chromium, CPU throttled ${throttle}x (CDP), the page's solver in 2,000-nonce slices`);
    console.log(`physical limit: node:crypto SHA-256 ${Math.round(nodeRate).toLocaleString('en')}/s on one core`);
    console.log('| bits | trials | median s | p90 s | worst s | hashes/s in the page |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const bits of difficulties) {
      const times: number[] = [];
      let totalHashes = 0;
      for (let i = 0; i < trials; i++) {
        const challenge = `v2.1.${bits}.${Date.now() + 120_000}.${randomBytes(16).toString('base64url')}.x.y`;
        const solved = await page.evaluate(
          ([c, d]) =>
            (
              globalThis as unknown as { solveTimed(c: string, d: number): Promise<{ ms: number; hashes: number }> }
            ).solveTimed(c, d),
          [challenge, bits] as [string, number],
        );
        times.push(solved.ms / 1000);
        totalHashes += solved.hashes;
      }
      times.sort((a, b) => a - b);
      const rate = totalHashes / times.reduce((a, b) => a + b, 0);
      console.log(
        `| ${bits} | ${trials} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.9).toFixed(2)} | ${times.at(-1)!.toFixed(2)} | ${Math.round(rate).toLocaleString('en')} |`,
      );
    }
  } finally {
    await browser.close();
    server.close();
  }
}
