/**
 * The console's inputs for a group of room settings, written from the registry
 * (lib/room-settings-registry.ts): label, bounds and hint come from there, so an input
 * cannot allow what the operator API refuses. Filled and checked by edge/client/operator/.
 */
import { consoleGroup, operatorSettingByApiName, type ConsoleGroup } from '../../../lib/room-settings-registry';
import { html, type Html } from './html';

function settingInput(apiName: string): Html {
  const { spec } = operatorSettingByApiName(apiName)!;
  if (spec.kind === 'flag') {
    return html`<div><label for="${apiName}"><input id="${apiName}" name="${apiName}" type="checkbox"> ${spec.label}</label></div>`;
  }
  const { min, max } = spec.operator!;
  const hintId = `${apiName}-hint`;
  return spec.hint
    ? html`<div><label for="${apiName}">${spec.label}</label><input id="${apiName}" name="${apiName}" type="number" min="${min}" max="${max}" step="1" required aria-describedby="${hintId}"><p id="${hintId}" class="muted">${spec.hint}</p></div>`
    : html`<div><label for="${apiName}">${spec.label}</label><input id="${apiName}" name="${apiName}" type="number" min="${min}" max="${max}" step="1" required></div>`;
}

/** Every console input of the group, in registry order. */
export const settingsInputs = (group: ConsoleGroup): Html[] => consoleGroup(group).map(settingInput);
