import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from '../../../lib/trace-context';

/**
 * The W3C trace of the request being served, for code far from the handler (the payment
 * gateway client) that must pass it on. Set by the request-context middleware; background jobs
 * run outside any request and have none.
 */
const storage = new AsyncLocalStorage<TraceContext>();

export const runInTrace = <T>(trace: TraceContext, work: () => T): T => storage.run(trace, work);
export const currentTrace = (): TraceContext | null => storage.getStore() ?? null;
