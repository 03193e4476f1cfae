/**
 * `npx tsx loadtest/token-cost.ts [seconds]`: ES256 signatures and verifications per second on
 * one core, with the edge's own token code (lib/token-keys, the queue-token signer). Logins and
 * joins each sign one token and admissions sign the access token, so this is the extra CPU a
 * join costs over a poll in loadtest/CAPACITY.md (`npm run bench` measures the polls).
 */
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';
import { createQueueTokens } from '../edge/src/tokens/queue-token';

const seconds = Number(process.argv[2] ?? 3);
const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('token-cost') });
// A verification cache would hide the cost: a fresh signer per verify pass, tokens all distinct.
const tokens = createQueueTokens(keys, { ttlMs: 3_600_000, clockToleranceMs: 5_000 });

let signed: string[] = [];
let started = performance.now();
while (performance.now() - started < seconds * 1000) {
  signed.push(await tokens.sign({ customerId: `c${signed.length}`, showtimeId: '1', ticket: signed.length }));
}
const signsPerSecond = signed.length / seconds;

const verifier = createQueueTokens(keys, { ttlMs: 3_600_000, clockToleranceMs: 5_000 });
let verified = 0;
started = performance.now();
while (performance.now() - started < seconds * 1000 && verified < signed.length) {
  await verifier.verify(signed[verified]!);
  verified++;
}
const verifiesPerSecond = verified / ((performance.now() - started) / 1000);
signed = [];
console.log(
  `ES256 on one core: ${signsPerSecond.toFixed(0)} signs/s (${(1000 / signsPerSecond).toFixed(3)} ms each), ${verifiesPerSecond.toFixed(0)} verifications/s (${(1000 / verifiesPerSecond).toFixed(3)} ms each)`,
);
