/**
 * Errors are data: a stable code, a human message, optional details and a retry hint.
 * Every service maps them to HTTP in exactly one place (`errorResponseBody` + `status`).
 * Codes and their statuses are catalogued once, in error-codes.ts.
 */
import { ERROR_STATUS, type CodeWithStatus, type ErrorCode } from './error-codes';

export { ERROR_STATUS, isErrorCode, type CodeWithStatus, type ErrorCode } from './error-codes';

export type ErrorDetails = Record<string, unknown>;
export type AppErrorOptions = { details?: ErrorDetails; retryAfterSeconds?: number; cause?: unknown };

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | null;
  readonly retryAfterSeconds: number | null;

  /** A catalogued code: the status comes from the catalogue (error-codes.ts). */
  constructor(code: ErrorCode, message: string, options?: AppErrorOptions);
  /**
   * Status and code as another service answered them (an answer relayed as it came, the
   * payment sandbox's own codes, Hono's HTTPException): not this catalogue's to decide.
   */
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

// The helpers take only codes the catalogue answers with their status, so a code in the wrong
// helper (or a code not catalogued) does not compile; the status itself comes from the catalogue.
export const badRequest = (code: CodeWithStatus<400>, message: string, details?: ErrorDetails) =>
  new AppError(code, message, details ? { details } : {});
export const unauthorized = (code: CodeWithStatus<401>, message: string) => new AppError(code, message);
export const forbidden = (code: CodeWithStatus<403>, message: string) => new AppError(code, message);
export const notFound = (code: CodeWithStatus<404>, message: string) => new AppError(code, message);
export const conflict = (code: CodeWithStatus<409>, message: string, details?: ErrorDetails) =>
  new AppError(code, message, details ? { details } : {});
export const unprocessable = (code: CodeWithStatus<422>, message: string, details?: ErrorDetails) =>
  new AppError(code, message, details ? { details } : {});
export const unavailable = (code: CodeWithStatus<503>, message: string, retryAfterSeconds: number) =>
  new AppError(code, message, { retryAfterSeconds });
