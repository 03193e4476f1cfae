/**
 * This process's mark of life in the database, for the claims a checkout takes (its
 * Idempotency-Key, the hold's checkout lease). Each claim has a lease (10 s: longer than a
 * checkout can run) after which a retry may take it over; a process killed mid-checkout (kill -9,
 * out of memory, a crash between the gateway's answer and the payment insert) used to hold the
 * buyer's checkout for all of it, and the buyer's retries ran out first.
 *
 * So each core holds a session advisory lock, on a connection of its own, for as long as it runs,
 * and records its number on every claim it takes. When a claim's owner's lock is free, its
 * process is gone (PostgreSQL lets go of a session's locks when its connection closes), and a
 * retry takes the claim over at once instead of waiting out the lease. While the owner lives,
 * its claims are kept until the lease ends, as before.
 *
 * If the lock's connection drops while the process lives (PostgreSQL restarted), the lock is
 * taken again within a second; in between, the process's claims look abandoned. A takeover then
 * is what the lease alone already allows once it lapses, with the same protections: the gateway
 * call is idempotent under the same key, and the payment insert does nothing on conflict.
 */
import postgres from 'postgres';

/** The advisory-lock namespace (first key) for core instances: "WRci" in ASCII. */
export const INSTANCE_LOCK_CLASS = 0x57526369;

export interface ClaimOwner {
  /** Recorded on every claim this process takes. */
  readonly id: number;
  close(): Promise<void>;
}

const randomInstanceId = () => 1 + Math.floor(Math.random() * 0x7ffffffe);

/**
 * Takes an instance number nobody holds and keeps its lock (checked every `keepEveryMs`, taken
 * again after the connection was lost).
 */
export async function holdClaimOwner(
  databaseUrl: string,
  options: { keepEveryMs?: number; onError?: (error: unknown) => void } = {},
): Promise<ClaimOwner> {
  // One connection for the process's life: never idle-closed, never recycled.
  const sql = postgres(databaseUrl, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
    connection: { application_name: 'core-instance' },
  });
  let id = 0;
  for (let attempt = 0; attempt < 5 && id === 0; attempt++) {
    const candidate = randomInstanceId();
    const [row] = await sql<{ taken: boolean }[]>`
      SELECT pg_try_advisory_lock(${INSTANCE_LOCK_CLASS}::int, ${candidate}::int) AS taken`;
    if (row!.taken) id = candidate;
  }
  if (id === 0) {
    await sql.end({ timeout: 1 });
    throw new Error('claim owner: no free instance number after 5 tries');
  }
  const keep = async () => {
    try {
      await sql`
        SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks
                                  WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                                    AND classid = ${INSTANCE_LOCK_CLASS}::int::oid AND objid = ${id}::int::oid
                                    AND objsubid = 2)
                    THEN true ELSE pg_try_advisory_lock(${INSTANCE_LOCK_CLASS}::int, ${id}::int) END AS held`;
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void keep(), options.keepEveryMs ?? 1_000);
  timer.unref();
  return {
    id,
    async close() {
      clearInterval(timer);
      await sql.end({ timeout: 2 });
    },
  };
}

/**
 * SQL (a fragment for a WHERE) true when the claim's owner is another process whose lock is free:
 * that process is gone. `claim` is the claim row's table alias. Taking the shared lock to look
 * costs nothing lasting: it ends with the statement's transaction.
 */
export function ownerGoneCondition(sql: postgres.Sql, claim: string, me: number | null) {
  return sql`(${sql(claim)}.owner_instance IS NOT NULL
          AND ${sql(claim)}.owner_instance IS DISTINCT FROM ${me}::int
          AND pg_try_advisory_xact_lock_shared(${INSTANCE_LOCK_CLASS}::int, ${sql(claim)}.owner_instance))`;
}
