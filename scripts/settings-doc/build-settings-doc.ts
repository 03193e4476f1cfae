/** Writes docs/settings.md from the room-settings registry (`npm run build:settings-doc`). */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderSettingsDoc, settingsDocPath } from './settings-doc';

let before = '';
try {
  before = readFileSync(settingsDocPath, 'utf8');
} catch {}
const text = renderSettingsDoc();
if (before !== text) writeFileSync(settingsDocPath, text);
console.log(`${before === text ? 'unchanged' : 'wrote'} ${settingsDocPath}`);
