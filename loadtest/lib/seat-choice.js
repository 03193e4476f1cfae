// @ts-check
/**
 * Seat choice for the buyer journey (./journey.js), on the seat map's compact view just read
 * (`GET …/seats?view=available`, core/src/seats/seat-availability.ts): per row one character
 * per column (`a` free, `(` `)` a free couple seat, first or second of its pair, `-` taken,
 * `.` no seat) and the codes at a fixed width. Loaded by k6 as well as Node, so ES2017 only.
 *
 * Why this shape: k6 runs scripts in goja, an interpreter, where walking 1,440 seat objects of
 * the full map cost ~8 ms of CPU per request; here a pick is a scan of short strings with
 * `charCodeAt`, a code is `codes.slice(i × width, …)`, and for the usual `best` preference the
 * scan stops at the first row that cannot beat the runs already found.
 */

/** @typedef {import('./journey.js').Buyer} Buyer */
/** @typedef {import('./journey.js').JourneySettings} JourneySettings */
/** @typedef {{ row: number, firstColumn: number, seats: string, codes: string }} ViewRow */
/** @typedef {{ codeWidth: number, rows: ViewRow[] }} SeatView */

const TAKEN = 45; // '-'
const GAP = 46; // '.'
const PAIR_OPENS = 40; // '('
const PAIR_CLOSES = 41; // ')'

/**
 * Picks `party` adjacent free seats: the most central run of the front-most rows, or (with
 * `random`) any run. The view is not kept: the buyer remembers only the seats it lost
 * (`taken`), and reads a fresh view before its next try, as the page does.
 * @param {SeatView | null | undefined} view @param {Buyer} buyer @param {JourneySettings} s @returns {string[]}
 */
export function pickSeats(view, buyer, s) {
  const rows = view && Array.isArray(view.rows) ? view.rows : [];
  const width = view ? view.codeWidth : 1;
  const party = s.party;
  let widest = 1;
  for (let k = 0; k < rows.length; k++)
    widest = Math.max(widest, at(rows, k).firstColumn + at(rows, k).seats.length - 1);
  const centre = (widest + 1) / 2;
  // Everyone wants the best seats: the first try aims at the top few runs, and each 409 widens
  // the choice (top 3, 12, 48), as a buyer settles for what is left. Only that many of the
  // best runs are kept (no sort of the whole hall); `random` draws one run from all of them.
  const spread = s.seatPreference === 'random' ? Infinity : 3 * Math.pow(4, Math.min(buyer.holdTries, 3));
  /** @type {{ row: ViewRow, from: number, score: number }[]} runs, best first */
  const best = [];
  let seen = 0;
  /** @type {{ row: ViewRow, from: number } | null} */
  let drawn = null;
  for (let k = 0; k < rows.length; k++) {
    const row = at(rows, k);
    // Rows come front first and a run's score is at least 2 × its row: no later row can do better.
    if (best.length === spread && row.row * 2 >= at(best, best.length - 1).score) break;
    const marks = row.seats;
    let free = 0;
    for (let j = 0; j < marks.length; j++) {
      const mark = marks.charCodeAt(j);
      if (mark === TAKEN || mark === GAP) {
        free = 0;
        continue;
      }
      if (++free < party) continue;
      const from = j - party + 1;
      if (spread === Infinity) {
        if (!fits(row, from, party, width, buyer.taken)) continue;
        seen++;
        if (s.random() * seen < 1) drawn = { row, from }; // reservoir sampling: uniform over all runs
        continue;
      }
      const score = row.row * 2 + Math.abs(row.firstColumn + from + (party - 1) / 2 - centre);
      if (best.length === spread && score >= at(best, best.length - 1).score) continue;
      if (!fits(row, from, party, width, buyer.taken)) continue;
      let place = best.length;
      while (place > 0 && at(best, place - 1).score > score) place--;
      best.splice(place, 0, { row, from, score });
      if (best.length > spread) best.pop();
    }
  }
  const pick = spread === Infinity ? drawn : best.length ? at(best, Math.floor(s.random() * best.length)) : null;
  if (!pick) return [];
  const codes = [];
  for (let i = pick.from; i < pick.from + party; i++) codes.push(codeAt(pick.row, i, width));
  return codes;
}

/** @param {ViewRow} row @param {number} i @param {number} width */
const codeAt = (row, i, width) => row.codes.slice(i * width, i * width + width).trim();

/** An element known to exist (indexed loops: k6's goja runs `for…of` through a slow iterator). @template T @param {T[]} list @param {number} i */
const at = (list, i) => /** @type {T} */ (list[i]);

/**
 * A run of free seats the core will take: no couple pair split (the core refuses half a pair,
 * lib/couple-pairs.ts), and no seat this buyer already lost in a 409.
 * @param {ViewRow} row @param {number} at @param {number} party @param {number} width @param {string[]} taken
 */
function fits(row, at, party, width, taken) {
  let open = 0;
  for (let i = at; i < at + party; i++) {
    const mark = row.seats.charCodeAt(i);
    if (mark === PAIR_OPENS) open++;
    else if (mark === PAIR_CLOSES && open-- === 0) return false; // its first half is outside the run
  }
  if (open !== 0) return false; // a pair's second half is outside the run
  if (taken.length > 0)
    for (let i = at; i < at + party; i++) if (taken.indexOf(codeAt(row, i, width)) !== -1) return false;
  return true;
}
