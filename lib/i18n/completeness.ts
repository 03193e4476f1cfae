/**
 * What a catalogue lacks against the English one: keys missing or extra, and `{name}`
 * placeholders that differ (a translation that drops `{time}` would show a sentence without
 * its time). Functions are compared by key only (they decide their own words).
 */
export type Table = Readonly<Record<string, unknown>>;

const placeholders = (entry: unknown) =>
  typeof entry === 'string' ? [...entry.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort() : null;

export function catalogueProblems(reference: Table, other: Table): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(reference)) {
    if (!Object.hasOwn(other, key)) {
      problems.push(`missing ${key}`);
      continue;
    }
    const want = placeholders(reference[key]);
    const got = placeholders(other[key]);
    // A function in either language takes any parameter it needs: only string/string is compared.
    if (want && got && want.join() !== got.join())
      problems.push(`${key}: placeholders {${got.join('}, {')}} instead of {${want.join('}, {')}}`);
  }
  for (const key of Object.keys(other)) if (!Object.hasOwn(reference, key)) problems.push(`extra ${key}`);
  return problems;
}

/** Entries of a Chinese table still in English: no CJK character at all (the allowed ones named). */
export function untranslated(table: Table, allowed: readonly string[] = []): string[] {
  return Object.entries(table)
    .filter(([key, entry]) => typeof entry === 'string' && !allowed.includes(key) && !/[\u3400-\u9fff]/.test(entry))
    .map(([key]) => key);
}
