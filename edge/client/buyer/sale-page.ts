/**
 * data-module="sale-page": the whole of /showtimes/:id. The server renders every step; this
 * wires the waiting room, the purchase and the confirmation to one flow, and keeps the sale
 * state (badge, pause, close) current without a reload.
 */
import { createBestSeats } from './best-seats';
import { createConfirmation } from './confirmation';
import { createSaleFlow } from './flow';
import { createPurchase } from './purchase';
import { createSaleStatus, showSaleStateOnSteps } from './sale-status';
import { createWaitingRoom } from './waiting-room';
import { isFinal } from '../logic/sale-state';
import { t } from '../core/i18n';

export function salePage(root: HTMLElement) {
  const flow = createSaleFlow({ root, title: document.title });
  const status = createSaleStatus(flow, root.dataset.saleState ?? 'on_sale');
  const purchase = createPurchase(flow);
  const confirmation = createConfirmation(flow, purchase);
  const waiting = createWaitingRoom({ flow, status, onAdmitted: (expiresAt) => void purchase.start(expiresAt) });
  waiting.wire();
  purchase.wire();
  createBestSeats(flow, purchase).wire();
  showSaleStateOnSteps(flow, status);
  // A final state needs no more news; an ended turn may still rejoin and wants the badge live.
  flow.onEnded(() => {
    if (isFinal(status.state)) status.stop();
  });

  const state = root.dataset.saleState;
  if (root.dataset.returnHold)
    return void confirmation.returned(root.dataset.returnHold, root.dataset.returnStatus ?? '');
  // A final state wins over a place in line: a reload of a sold-out or closed sale says so at
  // once, instead of polling a turn that can buy nothing (the server read the state just now).
  if (state === 'sold_out') return flow.ended(t('soldOut.title'), t('soldOut.text'), false);
  if (state === 'closed') return flow.ended(t('closed.title'), t('closed.text'), false);
  if (state === 'started') return flow.ended(t('closed.title'), t('closed.started'), false);
  if (root.dataset.joined === '1') return void waiting.poll();
  waiting.showStart();
}
