/**
 * Errors are data: a stable code, a human message, optional details and a retry hint.
 * Every service maps them to HTTP in exactly one place (`errorResponseBody` + `status`).
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails | null;
  readonly retryAfterSeconds: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetails; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
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
