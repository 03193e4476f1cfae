/**
 * Looking words up in the catalogues. An entry is a string with `{name}` placeholders, or a
 * function of the parameters where the words depend on them (English plurals). Numbers given
 * as parameters are formatted with Intl for the locale before they are placed.
 */
import { type Catalogue, en, type MessageKey } from './catalogue-en';
import { zhCN } from './catalogue-zh-CN';
import type { Entry, Params } from './entry';
import { DEFAULT_LOCALE, type Locale } from './locale';

export type { Catalogue, Entry, MessageKey, Params };

export const CATALOGUES: Record<Locale, Catalogue> = { en, 'zh-CN': zhCN };

export function fill(locale: Locale, entry: Entry, params: Params = {}): string {
  const shown: Params = {};
  for (const [name, value] of Object.entries(params))
    shown[name] = typeof value === 'number' ? new Intl.NumberFormat(locale).format(value) : value;
  if (typeof entry === 'function')
    return entry({ ...shown, count: typeof params.n === 'number' ? params.n : Number.NaN });
  return entry.replace(/\{(\w+)\}/g, (whole, name: string) => (name in shown ? String(shown[name]) : whole));
}

export function translate(locale: Locale, key: MessageKey, params?: Params): string {
  const entry = (CATALOGUES[locale] ?? CATALOGUES[DEFAULT_LOCALE])[key] ?? CATALOGUES[DEFAULT_LOCALE][key];
  return fill(locale, entry, params);
}

export type Translate = (key: MessageKey, params?: Params) => string;

export function translator(locale: Locale): Translate {
  return (key, params) => translate(locale, key, params);
}
