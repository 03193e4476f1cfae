import pino from 'pino';
import { configFromEnv, DEV_API_KEY, DEV_WEBHOOK_SECRET } from './config';
import { startPaymentSandbox } from './start';

/** `tsx payment-sandbox/src/node.ts`: the sandbox on PAYMENT_PORT (default 8082). */
const logger = pino({ name: 'payment-sandbox', level: process.env.LOG_LEVEL ?? 'info' });
const { port, config } = configFromEnv(process.env);

if (config.webhookSecrets.includes(DEV_WEBHOOK_SECRET)) {
  logger.warn('PAYMENT_WEBHOOK_SECRET not set: signing with the development secret');
}
if (config.apiKey === DEV_API_KEY) logger.warn('PAYMENT_API_KEY not set: using the development key');

const running = await startPaymentSandbox({
  port,
  hostname: process.env.PAYMENT_HOST ?? '0.0.0.0',
  config,
  logger,
});
logger.info(
  { url: running.url, publicUrl: config.publicUrl, webhookUrl: config.webhookUrl, secrets: config.webhookSecrets.length },
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
