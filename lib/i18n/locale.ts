/**
 * The buyer's language: which locales exist, how one is chosen (a cookie the visible switch
 * sets, else the browser's Accept-Language, else English), and Intl formatting in it. Shared
 * by the edge's pages, the browser code and the payment sandbox, so they all agree.
 */
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** The cookie the language switch sets (a year; not HttpOnly: the pages' script reads `lang` from <html> anyway). */
export const LOCALE_COOKIE = 'lang';

/** Each locale's own name, shown in the switch in that language. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

/** 'zh', 'zh-Hans', 'zh-CN', 'zh-SG' all read Simplified Chinese; 'en-GB' reads English. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  const lower = (tag ?? '').trim().toLowerCase();
  if (!lower) return null;
  if (lower === 'zh' || lower.startsWith('zh-cn') || lower.startsWith('zh-hans') || lower.startsWith('zh-sg'))
    return 'zh-CN';
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  return null;
}

/** The best of Accept-Language by q-value (ties keep the header's order); null when none is ours. */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...rest] = part.trim().split(';');
      const q = rest.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { tag: tag ?? '', quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const entry of ranked) {
    const found = matchLocale(entry.tag);
    if (found) return found;
  }
  return null;
}

/** The switch's choice wins over the browser's; English when neither names one of ours. */
export function chooseLocale(cookie: string | null | undefined, acceptLanguage: string | null | undefined): Locale {
  return matchLocale(cookie) ?? localeFromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

export function formatMoneyIn(locale: Locale, cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

export function formatNumberIn(locale: Locale, n: number): string {
  return new Intl.NumberFormat(locale).format(n);
}

/** A date and time in the locale (and the reader's zone when run in a browser), zone named. */
export function formatDateTimeIn(
  locale: Locale,
  date: Date,
  options: { withDate?: boolean; timeZone?: string } = {},
): string {
  const base: Intl.DateTimeFormatOptions =
    options.withDate === false
      ? { hour: '2-digit', minute: '2-digit', second: '2-digit' }
      : { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
  return new Intl.DateTimeFormat(locale, options.timeZone ? { ...base, timeZone: options.timeZone } : base).format(
    date,
  );
}
