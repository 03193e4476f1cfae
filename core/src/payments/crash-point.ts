/**
 * A test-only hook that kills the process at a named point of the money path, so the fault
 * suite can reproduce the crash real machines have at the worst moment (the gateway has
 * answered, the core has not written it down). Off unless `CORE_CRASH_AT` names the point;
 * read from the environment at the call, since the suite starts one core with it set and the
 * next without. The core refuses it in production (NODE_ENV=production), where a stray
 * variable must never take the service down.
 */
export type CrashPointName = 'after-gateway-session';

export function crashPoint(name: CrashPointName): void {
  if (typeof process === 'undefined' || process.env.CORE_CRASH_AT !== name) return;
  if (process.env.NODE_ENV === 'production') return;
  // SIGKILL, not exit(): no shutdown hook may finish the request's work on the way out.
  process.kill(process.pid, 'SIGKILL');
}
