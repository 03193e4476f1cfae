/**
 * The console's admission control panel: the operator's target against the rate the closed
 * loop runs at, why, the seats left against the turns they allow, and the loop's range and
 * on/off switch for this room. Filled live by edge/client/operator/admission-controls.ts.
 */
import { html, type Html } from './html';
import { settingsInputs } from './settings-inputs';

const TILES: [string, string][] = [
  ['admitTarget', 'Target rate (as set)'],
  ['admitEffective', 'Effective rate'],
  ['admitRange', 'Floor to ceiling'],
  ['seatsLeft', 'Seats left (available and held)'],
  ['turnCap', 'Turns held of those the seats allow'],
];

export function admissionPanel(): Html {
  return html`<section class="panel" aria-labelledby="admission-title">
<h2 id="admission-title">Admission control</h2>
<p class="muted">The rate follows the seat service's health: cut by half when holds slow down, errors rise or requests wait for the database, grown back slowly when it copes, never outside the floor and ceiling, and nobody admitted while it does not answer. Admission also stops while the buyers inside could take every seat left.</p>
<dl class="tiles">
${TILES.map(([key, label]) => html`<div class="tile"><dt id="label-${key}">${label}</dt><dd id="v-${key}">—</dd></div>`)}
</dl>
<p>Why: <span id="admission-reason">—</span></p>
<form id="admission-form" class="form-grid" novalidate>
  ${settingsInputs('admission')}
  <div><button class="button" type="submit">Apply admission control</button></div>
</form>
</section>`;
}
