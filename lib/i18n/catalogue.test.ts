import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../error-codes';
import { ERROR_MESSAGES, ERROR_MESSAGES_BY_LOCALE } from '../../edge/client/core/messages';
import { en } from './catalogue-en';
import { zhCN } from './catalogue-zh-CN';
import { catalogueProblems, untranslated } from './completeness';
import { chooseLocale, localeFromAcceptLanguage, LOCALES } from './locale';
import { CATALOGUES, translate } from './translate';

/** Entries that read the same in both languages (a file name, a bare pattern of numbers). */
const SAME_IN_BOTH = ['ics.filename', 'bookings.places', 'list.actionFor'];

describe('message catalogues', () => {
  it('every language has every key of the English catalogue, with the same placeholders', () => {
    for (const locale of LOCALES) expect(catalogueProblems(en, CATALOGUES[locale])).toEqual([]);
  });

  it('the check catches a missing key, an extra key and a dropped placeholder (broken variants)', () => {
    const { 'sale.joinLine': _dropped, ...missing } = zhCN;
    expect(catalogueProblems(en, missing)).toEqual(['missing sale.joinLine']);
    expect(catalogueProblems(en, { ...zhCN, 'sale.joinLinee': '加入排队' })).toEqual(['extra sale.joinLinee']);
    expect(catalogueProblems(en, { ...zhCN, 'list.starts': '开场时间' })).toEqual([
      'list.starts: placeholders {} instead of {time}',
    ]);
  });

  it('the Chinese catalogue is Chinese (an English string copied over is caught)', () => {
    expect(untranslated(zhCN, SAME_IN_BOTH)).toEqual([]);
    expect(untranslated({ ...zhCN, 'sale.joinLine': 'Join the line' }, SAME_IN_BOTH)).toEqual(['sale.joinLine']);
  });

  it('every error code has words in every language', () => {
    for (const locale of LOCALES) {
      const table = ERROR_MESSAGES_BY_LOCALE[locale];
      expect(Object.keys(table).sort()).toEqual([...ERROR_CODES].sort());
      expect(catalogueProblems(ERROR_MESSAGES, table)).toEqual([]);
    }
    expect(untranslated(ERROR_MESSAGES_BY_LOCALE['zh-CN'])).toEqual([]);
  });

  it('fills placeholders, formats numbers for the locale and picks English plurals', () => {
    expect(translate('en', 'wait.ahead', { n: 1 })).toBe('1 person ahead of you.');
    expect(translate('en', 'wait.ahead', { n: 1200 })).toBe('1,200 people ahead of you.');
    expect(translate('zh-CN', 'wait.ahead', { n: 1200 })).toBe('您前面还有 1,200 人。');
    expect(translate('zh-CN', 'list.starts', { time: '20:00' })).toBe('开场时间 20:00');
  });
});

describe('choosing the buyer language', () => {
  it('takes the switch cookie first, then Accept-Language by quality, else English', () => {
    expect(chooseLocale('zh-CN', 'en-GB,en;q=0.9')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'zh-Hans-CN')).toBe('zh-CN');
    expect(chooseLocale(undefined, 'fr-FR,en;q=0.5,zh;q=0.4')).toBe('en');
    expect(chooseLocale(undefined, 'fr-FR,zh;q=0.4')).toBe('zh-CN');
    expect(chooseLocale('xx', 'de')).toBe('en');
    expect(localeFromAcceptLanguage('zh-TW;q=0, en;q=0.1')).toBe('en');
  });
});
