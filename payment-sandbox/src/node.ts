import pino from 'pino';
import { checkDefaultSecret } from '../../lib/secrets-policy';
import { configFromEnv, DEV_API_KEY, DEV_WEBHOOK_SECRET } from './config';
import { startPaymentSandbox } from './start';

/** `tsx payment-sandbox/src/node.ts`: the sandbox on PAYMENT_PORT (default 8082). */
// Only the edge faces buyers: loopback unless told otherwise (PAYMENT_HOST, or HOST).
const { port, hostname, production, logLevel, config } = configFromEnv(process.env);
const logger = pino({ name: 'payment-sandbox', level: logLevel });
// A webhook signed with the public development secret is a forged payment: refused off
// loopback and in production (lib/secrets-policy.ts).
const secretWarning = checkDefaultSecret({
  service: 'payment sandbox',
  name: 'PAYMENT_WEBHOOK_SECRET',
  usingDefault: config.webhookSecrets.includes(DEV_WEBHOOK_SECRET),
  host: hostname,
  production,
});
if (secretWarning) logger.warn(`UNSAFE CONFIGURATION: ${secretWarning}`);
if (config.apiKey === DEV_API_KEY) logger.warn('PAYMENT_API_KEY not set: using the development key');

const running = await startPaymentSandbox({
  port,
  hostname,
  config,
  logger,
});
logger.info(
  {
    url: running.url,
    publicUrl: config.publicUrl,
    webhookUrl: config.webhookUrl,
    secrets: config.webhookSecrets.length,
  },
  'payment sandbox listening',
);

const shutdown = (signal: string) => {
  logger.info({ signal }, 'shutting down');
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', () => shutdown('SIGINT'));
process.once('SIGTERM', () => shutdown('SIGTERM'));
