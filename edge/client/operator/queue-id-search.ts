/**
 * data-module="queue-id-search": support finds a buyer by the queue id they quote (the one the
 * waiting page shows), through the operator API. Says in words where that buyer stands:
 * waiting (their place), choosing seats (until when), or no longer in line.
 */
import { api } from '../core/api';
import { byId, setText } from '../core/dom';
import { explain } from '../core/explain';
import { localTime } from '../core/format';

interface Lookup {
  queueId: string;
  ticket: number;
  status: 'waiting' | 'admitted' | 'not_in_line';
  customerId: string | null;
  position: number | null;
  turnExpiresAt: string | null;
  lineLength: number;
}

/** The answer in one sentence for the person on the phone with the buyer. */
export function describeLookup(found: Lookup): string {
  const who = found.customerId ? ` (customer ${found.customerId})` : '';
  if (found.status === 'waiting')
    return `${found.queueId}${who} is waiting in line: number ${found.position} of ${found.lineLength}.`;
  if (found.status === 'admitted') {
    const until = found.turnExpiresAt ? ` until ${localTime(new Date(found.turnExpiresAt), false)}` : '';
    return `${found.queueId}${who} has been let in and is choosing seats${until}.`;
  }
  return `${found.queueId} is no longer in line: the turn is over, the buyer left, or was passed over after not checking in. They can join again.`;
}

export function queueIdSearch(root: HTMLElement) {
  const id = root.dataset.showtimeId ?? '';
  const form = root.querySelector('form');
  const input = byId<HTMLInputElement>('queue-id-input');
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    void search();
  });

  async function search() {
    const quoted = input.value.trim();
    if (!quoted) {
      setText('queue-id-result', 'Enter the queue id the buyer reads out (8 characters, such as K7QM-2XPD).');
      return;
    }
    setText('queue-id-result', 'Looking it up…');
    const result = await api<Lookup>('GET', `/api/admin/showtimes/${id}/room/queue-ids/${encodeURIComponent(quoted)}`);
    setText('queue-id-result', result.ok && result.json ? describeLookup(result.json) : explain(result));
  }
}
