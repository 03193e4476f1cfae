import { notFound, type CodeWithStatus } from '../../../lib/errors';

const NUMERIC_ID = /^[1-9]\d{0,14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids that cannot exist are answered like ids that do not exist: 404, before any query. */
export function showtimeIdParam(raw: string | undefined): number {
  if (!raw || !NUMERIC_ID.test(raw)) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
  return Number(raw);
}

export function numericIdParam(raw: string | undefined, code: CodeWithStatus<404>, what: string): number {
  if (!raw || !NUMERIC_ID.test(raw)) throw notFound(code, `No such ${what}`);
  return Number(raw);
}

export function uuidParam(raw: string | undefined, code: CodeWithStatus<404>, what: string): string {
  if (!raw || !UUID.test(raw)) throw notFound(code, `No such ${what}`);
  return raw.toLowerCase();
}
