/** Words and numbers as a buyer reads them: durations, clocks, local times, money. */

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "45 seconds", "about 6 minutes", "about 1 hour 20 minutes". */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return plural(whole, 'second', 'seconds');
  const minutes = Math.round(whole / 60);
  if (minutes < 60) return `about ${plural(minutes, 'minute', 'minutes')}`;
  const hours = Math.floor(minutes / 60);
  return `about ${plural(hours, 'hour', 'hours')}${minutes % 60 ? ` ${plural(minutes % 60, 'minute', 'minutes')}` : ''}`;
}

/** "4:05" from milliseconds, never negative. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${s < 10 ? '0' : ''}${s}`;
}

/** A date in the reader's time zone, with the zone's short name so nobody guesses. */
export function localTime(date: Date, withDate: boolean): string {
  const options: Intl.DateTimeFormatOptions = withDate
    ? { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }
    : { hour: '2-digit', minute: '2-digit', second: '2-digit' };
  return new Intl.DateTimeFormat(undefined, options).format(date);
}

export function money(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

/** "updated 12 s ago" / "updated just now". */
export function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 2) return 'just now';
  if (seconds < 90) return `${seconds} s ago`;
  return `${Math.round(seconds / 60)} min ago`;
}
