import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOM_SETTINGS, ROOM_SETTING_NAMES } from '../../lib/room-settings-registry';
import { renderSettingsDoc, settingsDocPath } from './settings-doc';

describe('docs/settings.md', () => {
  it('is up to date with the room-settings registry (run `npm run build:settings-doc` if not)', () => {
    expect(readFileSync(settingsDocPath, 'utf8')).toBe(renderSettingsDoc());
  });

  it('has a row for every setting, so a changed bound makes the page stale', () => {
    const page = renderSettingsDoc();
    for (const name of ROOM_SETTING_NAMES) expect(page).toContain(`\`${name}\``);
    // The broken variant: a bound the registry no longer says is a different page.
    const capacity = ROOM_SETTINGS.capacity as { operator: { max: number } };
    const max = capacity.operator.max;
    capacity.operator.max = max + 1;
    try {
      expect(renderSettingsDoc()).not.toBe(page);
    } finally {
      capacity.operator.max = max;
    }
  });
});
