import { z } from 'zod';

export const EVENT_TYPES = ['payment.succeeded', 'payment.failed', 'refund.succeeded'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Faults on demand, globally (`PUT /v1/faults`) or per session (`faults` in the create body,
 * `PUT /v1/payments/:id/faults`). A session's field wins over the global one; an absent field
 * means "no fault". Strict, so a misspelt switch is a 422 instead of a silently healthy run.
 */
export const faultsSchema = z.strictObject({
  /** Wait this long before the first delivery attempt of every event. */
  webhookDelayMs: z.number().int().min(0).max(600_000).optional(),
  /** Deliver each event this many times (same event id, same body): duplicates. */
  webhookCopies: z.number().int().min(1).max(20).optional(),
  /** `reverse`: hold events back and deliver each batch newest first (see reorder*). */
  webhookOrder: z.enum(['normal', 'reverse']).optional(),
  /** A reversed batch is released when it holds this many events… */
  reorderBatchSize: z.number().int().min(2).max(1000).optional(),
  /** …or this long after its first event arrived, whichever comes first. */
  reorderWindowMs: z.number().int().min(0).max(600_000).optional(),
  /** Never send: `true` for every event, or a list of event types to drop. */
  dropWebhooks: z.union([z.boolean(), z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length)]).optional(),
  /** The first N attempts of every delivery fail (not sent, as if the network ate them). */
  webhookFailAttempts: z.number().int().min(0).max(100).optional(),
  /** Answer the query API (`GET /v1/payments…`) this much later. */
  queryDelayMs: z.number().int().min(0).max(60_000).optional(),
});

export type Faults = z.infer<typeof faultsSchema>;

export type EffectiveFaults = {
  webhookDelayMs: number;
  webhookCopies: number;
  webhookOrder: 'normal' | 'reverse';
  /** Reorder buffer this event goes to: one per payment for session faults, else shared. */
  reorderScope: 'global' | 'payment';
  reorderBatchSize: number;
  reorderWindowMs: number;
  drop: boolean | EventType[];
  webhookFailAttempts: number;
  queryDelayMs: number;
};

export const DEFAULT_REORDER_BATCH_SIZE = 2;
export const DEFAULT_REORDER_WINDOW_MS = 1000;

/** Session faults over global faults over "no fault". */
export function effectiveFaults(global: Faults, session: Faults | null): EffectiveFaults {
  const pick = <K extends keyof Faults>(key: K): Faults[K] => session?.[key] ?? global[key];
  return {
    webhookDelayMs: pick('webhookDelayMs') ?? 0,
    webhookCopies: pick('webhookCopies') ?? 1,
    webhookOrder: pick('webhookOrder') ?? 'normal',
    reorderScope: session?.webhookOrder !== undefined ? 'payment' : 'global',
    reorderBatchSize: pick('reorderBatchSize') ?? DEFAULT_REORDER_BATCH_SIZE,
    reorderWindowMs: pick('reorderWindowMs') ?? DEFAULT_REORDER_WINDOW_MS,
    drop: pick('dropWebhooks') ?? false,
    webhookFailAttempts: pick('webhookFailAttempts') ?? 0,
    queryDelayMs: pick('queryDelayMs') ?? 0,
  };
}

export function shouldDrop(faults: EffectiveFaults, type: EventType): boolean {
  return Array.isArray(faults.drop) ? faults.drop.includes(type) : faults.drop;
}
