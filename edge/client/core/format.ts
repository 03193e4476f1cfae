/** Words and numbers as a buyer reads them, in the page's language: durations, clocks, local times, money. */
import { formatMoneyIn } from '../../../lib/i18n/locale';
import { pageLocale, t } from './i18n';

/** "45 seconds", "about 6 minutes", "about 1 hour 20 minutes" (or the locale's words). */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return t('time.seconds', { n: whole });
  const minutes = Math.round(whole / 60);
  if (minutes < 60) return t('time.aboutMinutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? t('time.hoursMinutes', { hours, minutes: minutes % 60 }) : t('time.aboutHours', { n: hours });
}

/** "4:05" from milliseconds, never negative. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${s < 10 ? '0' : ''}${s}`;
}

/** A date in the reader's time zone and language, with the zone's short name so nobody guesses. */
export function localTime(date: Date, withDate: boolean): string {
  const options: Intl.DateTimeFormatOptions = withDate
    ? { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }
    : { hour: '2-digit', minute: '2-digit', second: '2-digit' };
  return new Intl.DateTimeFormat(pageLocale(), options).format(date);
}

export function money(cents: number, currency: string): string {
  return formatMoneyIn(pageLocale(), cents, currency);
}

/** "updated 12 s ago" / "updated just now". */
export function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 2) return t('time.justNow');
  if (seconds < 90) return t('time.secondsAgo', { n: seconds });
  return t('time.minutesAgo', { n: Math.round(seconds / 60) });
}
