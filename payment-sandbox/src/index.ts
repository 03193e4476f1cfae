export { createPaymentSandbox, type PaymentSandbox, type PaymentSandboxOptions } from './app';
export { startPaymentSandbox, type RunningPaymentSandbox, type StartPaymentSandboxOptions } from './start';
export { configFromEnv, resolveConfig, DEV_API_KEY, DEV_WEBHOOK_SECRET, type SandboxConfig } from './config';
export type { Faults, EventType } from './faults';
export type { PaymentView, RefundView, WebhookEvent, PaymentStatus } from './model';
