import { Hono, type Context } from 'hono';
import { isAppError } from '../../lib/errors';
import { chooseLocale, type Locale } from '../../lib/i18n/locale';
import { returnRedirectUrl, type Payment } from './model';
import {
  newNonce,
  pageSecurityHeaders,
  renderDecidedPage,
  renderExpiredPage,
  renderNotFoundPage,
  renderPayPage,
} from './pay-page';
import type { PaymentService } from './payments';

/**
 * The hosted pay page the buyer's browser sees: no API key (the payment id in the link is
 * the capability, as with a real gateway's checkout URL), HTML answers, 303 back to the shop.
 */
export function createPageRoutes(service: PaymentService): Hono {
  const pages = new Hono();

  const lookup = (id: string): Payment | null => {
    try {
      return service.get(id);
    } catch (error) {
      if (isAppError(error) && error.status === 404) return null;
      throw error;
    }
  };

  /** The shop passes the buyer's language as ?lang= (another origin: no cookie); else Accept-Language. */
  const localeOf = (c: Context): Locale => chooseLocale(c.req.query('lang'), c.req.header('accept-language'));

  const page = (
    c: Context,
    status: 200 | 404 | 409 | 410,
    render: (nonce: string, locale: Locale) => ReturnType<typeof renderNotFoundPage>,
  ) => {
    const nonce = newNonce();
    const locale = localeOf(c);
    return c.html(render(nonce, locale), status, {
      ...pageSecurityHeaders(nonce),
      'Content-Language': locale,
      Vary: 'Accept-Language',
    });
  };

  pages.get('/:id', (c) => {
    const payment = lookup(c.req.param('id'));
    if (!payment) return page(c, 404, renderNotFoundPage);
    if (payment.status === 'expired') return page(c, 200, (n, l) => renderExpiredPage(payment, n, l));
    if (payment.status !== 'pending') return page(c, 200, (n, l) => renderDecidedPage(payment, n, l));
    return page(c, 200, (n, l) => renderPayPage(payment, service.now(), n, l));
  });

  const decide = (action: 'approve' | 'decline') => (c: Context) => {
    const payment = lookup(c.req.param('id') ?? '');
    if (!payment) return page(c, 404, renderNotFoundPage);
    if (payment.status === 'expired') return page(c, 410, (n, l) => renderExpiredPage(payment, n, l));
    try {
      if (action === 'approve') service.approve(payment.id);
      else service.decline(payment.id);
    } catch (error) {
      // A second click after the other button (back button, two tabs): show what happened.
      if (isAppError(error) && error.status === 409) return page(c, 409, (n, l) => renderDecidedPage(payment, n, l));
      throw error;
    }
    return c.redirect(returnRedirectUrl(payment), 303);
  };

  pages.post('/:id/approve', decide('approve'));
  pages.post('/:id/decline', decide('decline'));
  return pages;
}
