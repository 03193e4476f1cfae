import { AppError, conflict, isAppError, notFound, unprocessable } from '../../../lib/errors';

interface PostgresErrorLike {
  code?: string;
  detail?: string;
  message?: string;
  constraint_name?: string;
  column_name?: string;
}

function isPostgresError(value: unknown): value is PostgresErrorLike {
  return typeof value === 'object' && value !== null && 'code' in value && typeof value.code === 'string';
}

function parseDetail(error: PostgresErrorLike): Record<string, unknown> {
  try {
    return error.detail ? (JSON.parse(error.detail) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The one switch from SQLSTATE to domain errors: the WR* codes raised by our own functions
 * (see migrations/functions/hold_seats.sql) and the server's codes that a caller can act on:
 * every code a bad value can raise (classes 22 and 23, 54000) is a 4xx. Anything else is
 * returned unchanged and becomes a 500, because it is a bug, not a refusal.
 */
export function mapDatabaseError(error: unknown): unknown {
  if (!isPostgresError(error)) return error;
  const detail = parseDetail(error);
  switch (error.code) {
    case 'WR404':
      return notFound('SHOWTIME_NOT_FOUND', error.message ?? 'Showtime not found');
    case 'WR410':
      return conflict('SHOWTIME_STARTED', 'The showtime has already started; its seats are no longer sold');
    case 'WR409':
      return conflict('SALE_NOT_OPEN', 'This showtime is not on sale right now', detail);
    case 'WR422':
      return unprocessable('UNKNOWN_SEATS', "Some seats do not exist in this showtime's hall", detail);
    case 'WRL22':
      return unprocessable(
        'SEAT_LIMIT_EXCEEDED',
        `A customer may hold or own at most ${String(detail.limit)} seats of this showtime`,
        detail,
      );
    case 'WRC09':
      return conflict('SEATS_UNAVAILABLE', 'Some seats are no longer available', detail);
    // Best available (migrations/functions/hold_best_seats.sql): no N adjacent seats in one row left.
    case 'WRN09':
      return conflict(
        'NO_SEATS_TOGETHER',
        `No ${String(detail.requested)} seats together are left; at most ${String(detail.maxTogether)} sit together`,
        detail,
      );
    // Fare classes (migrations/functions/hold_places.sql, fare_apply.sql, fare_configure_places.sql)
    case 'WRK22':
      return unprocessable(
        'UNKNOWN_FARE_CLASS',
        detail.seated
          ? 'This class has numbered seats: choose seats instead'
          : 'This showtime has no such general-admission class',
        detail,
      );
    case 'WRS09':
      return conflict('PLACES_UNAVAILABLE', 'Not enough places are left in this class', detail);
    case 'WRK09':
      return conflict('FARE_CLASS_IN_USE', 'That change would leave fewer places than are sold and held', detail);
    case 'WRB04':
      return notFound('BOOKING_NOT_FOUND', 'No such booking');
    case 'WRB09':
      return conflict(
        'BOOKING_NOT_CANCELLABLE',
        `A ${String(detail.status ?? '')} booking cannot be cancelled`.replace('  ', ' '),
        detail,
      );
    case 'WRF09':
      return conflict('FARE_CLASS_FULL', 'This class has no room left', detail);
    case '23505':
      return conflict('DUPLICATE', 'That already exists', { constraint: error.constraint_name ?? null });
    case '23503':
      return unprocessable('REFERENCE_NOT_FOUND', 'A referenced record does not exist', {
        constraint: error.constraint_name ?? null,
      });
    case '23514':
      return unprocessable('CONSTRAINT_VIOLATED', 'The values break a rule of the schema', {
        constraint: error.constraint_name ?? null,
      });
    // Text the database cannot store: NUL (22021 character_not_in_repertoire) or what the
    // server encoding cannot hold (22P05). The JSON guard refuses both first (lib/json-guard.ts);
    // this is the second line for text arriving any other way (a path, a query, a header).
    case '22021':
    case '22P05':
      return unprocessable(
        'INVALID_VALUE',
        'A text value contains a character that cannot be stored (NUL or invalid Unicode)',
      );
    case '23502': // not_null_violation: a value the schema requires is missing
      return unprocessable('CONSTRAINT_VIOLATED', 'A required value is missing', {
        constraint: error.column_name ?? null,
      });
    case '54000': // program_limit_exceeded: a value too large to store or index, a length too large
      return unprocessable('INVALID_VALUE', 'A value is too large');
    case '40P01': // deadlock detected
    case '40001': // serialization failure
    case '55P03': // lock_timeout
    case '57014': // statement_timeout
      return busy(error);
    default:
      // Class 22 (data exception: too long, out of range, malformed, division by zero, a bad
      // pattern…) is a value the caller sent that the database refused: whatever the code,
      // the answer is 422, never a 500. Class 23 (integrity) likewise: a rule of the schema.
      if (error.code?.startsWith('22')) return unprocessable('INVALID_VALUE', 'A value is out of range or malformed');
      if (error.code?.startsWith('23'))
        return unprocessable('CONSTRAINT_VIOLATED', 'The values break a rule of the schema', {
          constraint: error.constraint_name ?? null,
        });
      return isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
  }
}

const busy = (cause: unknown) =>
  new AppError('BUSY', 'The seat service is busy; try again in a moment', { retryAfterSeconds: 1, cause });

const databaseUnavailable = (cause: unknown) =>
  new AppError('DATABASE_UNAVAILABLE', 'The seat service cannot reach its database right now; try again in a moment', {
    retryAfterSeconds: 2,
    cause,
  });

/** postgres.js's own codes for a connection it lost or could not open. */
const CLIENT_CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);
/** Socket errors on the way to the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The database is shutting down, restarting, not accepting connections, or the connection to
 * it broke: SQLSTATE 57P01/57P02/57P03 (admin shutdown, crash shutdown, cannot connect now),
 * class 08 (connection exception), 53300 (too many connections), or a client/socket error.
 * None of these is the buyer's fault or a bug: the answer is 503 and "try again".
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code.startsWith('08'))
      return true;
    if (CLIENT_CONNECTION_CODES.has(code) || SOCKET_CODES.has(code)) return true;
  }
  // Node reports a refused connect to several addresses as an AggregateError of socket errors.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return false;
}

/**
 * What the core's error handler calls on anything a route throws, so every route answers a
 * database outage, a lock timeout or a serialization failure the same way (503 with
 * Retry-After) without each route catching them. Domain errors pass through unchanged.
 */
export function toHttpError(error: unknown): unknown {
  if (isAppError(error)) return error;
  return mapDatabaseError(error);
}

/** Errors worth one more attempt before the buyer is told the service is busy. */
export function isTransientDatabaseError(error: unknown): boolean {
  return isPostgresError(error) && ['40P01', '40001', '55P03'].includes(error.code ?? '');
}
