/** Small DOM helpers. Server strings only ever go through textContent, never markup. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
}

export function setText(id: string, value: string): HTMLElement | null {
  const element = document.getElementById(id);
  if (element && element.textContent !== value) element.textContent = value;
  return element;
}

export function show(id: string, visible: boolean): HTMLElement | null {
  const element = document.getElementById(id);
  if (element) element.hidden = !visible;
  return element;
}

/**
 * The page's one polite live region. Repeating the same words is a no-op, so a caller may
 * say what it would say on every poll and screen readers only hear changes.
 */
export function createAnnouncer(region: HTMLElement | null) {
  let last = '';
  return {
    say(message: string) {
      if (!region || message === last) return;
      last = message;
      region.textContent = message;
    },
    get last() {
      return last;
    },
  };
}

export type Announcer = ReturnType<typeof createAnnouncer>;
