/**
 * Progressive enhancement in the GOV.UK Frontend manner: the server renders working HTML,
 * and each interactive component is a function that enhances one element it finds by its
 * `data-module` attribute. An element is enhanced once, however often this runs.
 */
import { localTime } from './format';

export type Component = (root: HTMLElement) => void;

export function initAll(components: Record<string, Component>, scope: ParentNode = document) {
  renderLocalTimes(scope);
  scope.querySelectorAll<HTMLElement>('[data-module]').forEach((root) => {
    const name = root.dataset.module ?? '';
    const component = components[name];
    if (!component || root.dataset.moduleInit === '1') return;
    root.dataset.moduleInit = '1';
    component(root);
  });
}

/** Re-renders <time data-local> elements in the reader's own time zone. */
export function renderLocalTimes(scope: ParentNode = document) {
  scope.querySelectorAll<HTMLTimeElement>('time[data-local]').forEach((element) => {
    const date = new Date(element.getAttribute('datetime') ?? '');
    if (!Number.isNaN(date.getTime())) element.textContent = localTime(date, element.dataset.local === 'datetime');
  });
}

/** Runs once the document is parsed (scripts load with `defer`, so usually at once). */
export function onReady(run: () => void) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true });
  else run();
}
