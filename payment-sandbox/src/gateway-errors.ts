/**
 * The sandbox stands in for an outside gateway: its error codes are its own (see
 * payment-sandbox/README.md), not the catalogue of the core and the edge (lib/error-codes.ts),
 * so its helpers take any code and write the status out.
 */
import { AppError, type ErrorDetails } from '../../lib/errors';

const withDetails = (details?: ErrorDetails) => (details ? { details } : {});

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(400, code, message, withDetails(details));
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(409, code, message, withDetails(details));
export const unprocessable = (code: string, message: string, details?: ErrorDetails) =>
  new AppError(422, code, message, withDetails(details));
