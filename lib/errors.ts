/**
 * Errors are data: a stable code, a human message, optional details and a retry hint.
 * Every service maps them to HTTP in exactly one place (`errorResponseBody` + `status`).
 * Codes and their statuses are catalogued once, in error-codes.ts.
 */
import { ERROR_STATUS, type ErrorCode } from './error-codes';

export { ERROR_STATUS, isErrorCode, type ErrorCode } from './error-codes';

export type ErrorDetails = Record<string, unknown>;
export type AppErrorOptions = { details?: ErrorDetails; retryAfterSeconds?: number; cause?: unknown };

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | null;
  readonly retryAfterSeconds: number | null;

  /** A catalogued code: the status comes from the catalogue (error-codes.ts). */
  constructor(code: ErrorCode, message: string, options?: AppErrorOptions);
  /** The status written out (lib/error-codes.test.ts keeps it equal to the catalogue's). */
  constructor(status: number, code: string, message: string, options?: AppErrorOptions);
  constructor(first: ErrorCode | number, second: string, third?: string | AppErrorOptions, fourth?: AppErrorOptions) {
    const catalogued = typeof first === 'string';
    const message = catalogued ? second : String(third);
    const options = (catalogued ? (third as AppErrorOptions | undefined) : fourth) ?? {};
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = catalogued ? ERROR_STATUS[first] : first;
    this.code = catalogued ? first : second;
    this.details = options.details ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The JSON body every service answers errors with: `{"error":{"code","message",…details}}`. */
export function errorResponseBody(error: AppError): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ?? {}),
      ...(error.retryAfterSeconds !== null ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    },
  };
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(400, code, message, details ? { details } : {});
export const unauthorized = (code: string, message: string) => new AppError(401, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(409, code, message, details ? { details } : {});
export const unprocessable = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(422, code, message, details ? { details } : {});
export const unavailable = (code: string, message: string, retryAfterSeconds: number) =>
  new AppError(503, code, message, { retryAfterSeconds });
