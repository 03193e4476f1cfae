/** The "Check my place" form's answer: the published log from the core, checked by the shared verifier. */
import { decodeJwt } from 'jose';
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import { CannotVerify, verifyFairness } from '../../../lib/fairness-verify';
import type { FairnessReader } from '../rooms/fairness-reader';
import { SHOWTIME_ID } from '../http-context';
import type { CheckOutcome, FairnessForm } from './fairness-page';

const MAX_RECEIPT_CHARS = 4_000;

/** The form as sent, cut to sane sizes (a receipt is a few hundred characters). */
export function readFairnessForm(body: Record<string, unknown>): FairnessForm {
  const text = (value: unknown, max: number) => (typeof value === 'string' ? value.trim().slice(0, max) : '');
  return { showtime: text(body.showtime, 64), receipt: text(body.receipt, MAX_RECEIPT_CHARS) };
}

/** Which showtime to check: the one typed, else the one the receipt names (read, not yet trusted). */
function showtimeOf(form: FairnessForm): string | null {
  if (form.showtime) return form.showtime;
  try {
    const named = decodeJwt(form.receipt).showtimeId;
    return typeof named === 'string' ? named : null;
  } catch {
    return null;
  }
}

export async function checkPlace(
  logs: FairnessReader,
  receipts: ReceiptSigner,
  form: FairnessForm,
): Promise<CheckOutcome> {
  const showtimeId = showtimeOf(form);
  if (!showtimeId) return { kind: 'cannot', reason: 'noShowtime' };
  if (!SHOWTIME_ID.test(showtimeId)) return { kind: 'cannot', reason: 'unknownShowtime' };
  let answer: { status: number; body: unknown };
  try {
    answer = await logs.read(showtimeId);
  } catch {
    return { kind: 'cannot', reason: 'unavailable' };
  }
  if (answer.status === 404) return { kind: 'cannot', reason: 'unknownShowtime' };
  if (answer.status !== 200 || !answer.body) return { kind: 'cannot', reason: 'unavailable' };
  if ((answer.body as { ended?: unknown }).ended === false) return { kind: 'cannot', reason: 'notEnded' };
  try {
    const result = await verifyFairness(answer.body, { receipt: form.receipt || null, jwks: receipts.jwks() });
    return { kind: 'result', result };
  } catch (error) {
    if (error instanceof CannotVerify) return { kind: 'cannot', reason: 'badLog' };
    throw error;
  }
}
