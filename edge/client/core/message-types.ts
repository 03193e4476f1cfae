/** The shape of an error-code word table, apart from the tables (so the languages do not import each other). */
import type { ErrorCode } from '../../../lib/errors';
import type { ApiResult } from './api';

/** The words for one code; a function when the answer's details make them more precise. */
export type Message = string | ((result: ApiResult<unknown>) => string);

export type ErrorMessages = { readonly [C in ErrorCode]: Message };
