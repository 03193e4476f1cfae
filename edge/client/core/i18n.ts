/**
 * The browser's side of the catalogues: the language is the one the server chose and wrote on
 * <html lang> (the switch's cookie, else Accept-Language), so the script and the page agree.
 */
import { isLocale, DEFAULT_LOCALE, type Locale } from '../../../lib/i18n/locale';
import { translate, type MessageKey, type Params } from '../../../lib/i18n/translate';

/** The page's document when there is one (this module is also read by the server's typecheck, which has no DOM). */
const pageDocument = (globalThis as { document?: { documentElement: { lang: string } } }).document;

export function pageLocale(): Locale {
  const lang = pageDocument?.documentElement.lang ?? '';
  return isLocale(lang) ? lang : DEFAULT_LOCALE;
}

export const t = (key: MessageKey, params?: Params): string => translate(pageLocale(), key, params);
