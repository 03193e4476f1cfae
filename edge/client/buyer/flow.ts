/**
 * What the parts of the sale page share: which step is shown, the one alert (placed next to
 * what it is about and focused when it needs the buyer's eyes), the polite live region, the
 * tab title, and the end of the road (with a way back into the line only where one exists).
 */
import { createAnnouncer, setText, show } from '../core/dom';

export const STEPS = [
  'step-start',
  'step-prequeue',
  'step-waiting',
  'step-seats',
  'step-hold',
  'step-confirm',
  'step-ended',
] as const;
export type Step = (typeof STEPS)[number];

export interface SaleFlowOptions {
  root: HTMLElement;
  title: string;
  /** Called when the page gives the buyer's turn up for good (stop every timer). */
  onEnded?: () => void;
}

export function createSaleFlow(options: SaleFlowOptions) {
  const { root } = options;
  const showtimeId = root.dataset.showtimeId ?? '';
  const announcer = createAnnouncer(document.getElementById('status'));
  const alertElement = document.getElementById('alert');
  const alertHome = alertElement ? { parent: alertElement.parentElement, next: alertElement.nextSibling } : null;
  const endedListeners: (() => void)[] = [];
  let current: Step | null = null;

  /** The alert sits in the shown step's slot (next to the seat map), or at the top. */
  function placeAlert() {
    if (!alertElement || !alertHome?.parent) return;
    const slot = current ? document.querySelector(`#${current} [data-alert-slot]`) : null;
    if (slot && alertElement.parentElement !== slot) slot.appendChild(alertElement);
    else if (!slot && alertElement.parentElement !== alertHome.parent)
      alertHome.parent.insertBefore(alertElement, alertHome.next);
  }

  const flow = {
    showtimeId,
    root,
    get step() {
      return current;
    },
    go(step: Step) {
      for (const id of STEPS) show(id, id === step);
      if (current !== step) {
        current = step;
        placeAlert();
        const heading = document.querySelector<HTMLElement>(`#${step} h2`);
        if (heading) {
          heading.tabIndex = -1;
          heading.focus();
        }
      }
    },
    /**
     * Shows (or clears) the alert. With focus, it takes the keyboard focus and scrolls into
     * view, so a buyer on a phone sees why a seat vanished instead of a silent change.
     */
    alert(message: string | null, focus = false) {
      if (!alertElement) return;
      placeAlert();
      alertElement.textContent = message ?? '';
      alertElement.hidden = !message;
      if (message && focus) {
        alertElement.tabIndex = -1;
        alertElement.focus({ preventScroll: true });
        alertElement.scrollIntoView({ block: 'center' });
      }
    },
    announce(message: string) {
      announcer.say(message);
    },
    /** The tab title: the place in line, "It's your turn", or just the film. */
    title(prefix: string | null) {
      document.title = prefix ? `${prefix} · ${options.title}` : options.title;
    },
    /** The sale or the turn is over: say so plainly; offer to rejoin only where that can work. */
    ended(title: string, message: string, canRejoin: boolean) {
      for (const listener of endedListeners) listener();
      setText('ended-title', title);
      setText('ended-text', message);
      show('rejoin-button', canRejoin);
      flow.alert(null);
      flow.title(null);
      flow.go('step-ended');
      flow.announce(`${title}. ${message}`);
    },
    onEnded(listener: () => void) {
      endedListeners.push(listener);
    },
  };
  return flow;
}

export type SaleFlow = ReturnType<typeof createSaleFlow>;
