// @ts-check
/**
 * Seat choice for the buyer journey (./journey.js), on a seat map just read. Loaded by k6 as
 * well as Node, so ES2017 only.
 */

/** @typedef {import('./journey.js').Buyer} Buyer */
/** @typedef {import('./journey.js').JourneySettings} JourneySettings */

/**
 * Picks `party` adjacent free seats from a seat map just read: the most central run of the
 * front-most rows, or any run. The map is not kept: the buyer remembers only the seats it
 * lost (`taken`), and reads a fresh map before its next try, as the page does.
 * @param {any[]} seatMap @param {Buyer} buyer @param {JourneySettings} s @returns {string[]}
 */
export function pickSeats(seatMap, buyer, s) {
  const taken = buyer.taken;
  const partners = couplePartners(seatMap);
  /** @type {Map<number, any[]>} */
  const rows = new Map();
  let widest = 1;
  for (const seat of seatMap) {
    if (seat.column > widest) widest = seat.column;
    if (seat.status !== 'AVAILABLE' || taken.indexOf(seat.code) !== -1) continue;
    const row = rows.get(seat.row);
    if (row) row.push(seat);
    else rows.set(seat.row, [seat]);
  }
  // Everyone wants the best seats: the first try aims at the top few runs, and each 409 widens
  // the choice (top 3, 12, 48), as a buyer settles for what is left. Only that many of the
  // best runs are kept (no sort of the whole hall); `random` draws one run from all of them.
  const spread = s.seatPreference === 'random' ? Infinity : 3 * Math.pow(4, Math.min(buyer.holdTries, 3));
  /** @type {any[]} runs as { seats, i, score }, best first */
  const best = [];
  let seen = 0;
  /** @type {any} */
  let drawn = null;
  for (const [row, list] of rows) {
    /** @type {any[]} */
    const seats = list.sort((a, b) => a.column - b.column);
    for (let i = 0; i + s.party <= seats.length; i++) {
      if (seats[i + s.party - 1].column - seats[i].column !== s.party - 1) continue;
      if (splitsPair(seats, i, s.party, partners)) continue;
      seen++;
      if (spread === Infinity) {
        if (s.random() * seen < 1) drawn = { seats, i }; // reservoir sampling: uniform over all runs
        continue;
      }
      const score = row * 2 + Math.abs((seats[i].column + seats[i + s.party - 1].column) / 2 - (widest + 1) / 2);
      if (best.length === spread && score >= best[best.length - 1].score) continue;
      let at = best.length;
      while (at > 0 && best[at - 1].score > score) at--;
      best.splice(at, 0, { seats, i, score });
      if (best.length > spread) best.pop();
    }
  }
  const pick = spread === Infinity ? drawn : best[Math.floor(s.random() * best.length)];
  return pick ? pick.seats.slice(pick.i, pick.i + s.party).map((/** @type {any} */ seat) => seat.code) : [];
}

/**
 * Couple seats are sold in pairs (the core refuses half a pair): in a row, couple seats pair
 * up in column order, the 1st with the 2nd, the 3rd with the 4th (lib/couple-pairs.ts).
 * @param {any[]} seatMap @returns {Map<string, string>}
 */
function couplePartners(seatMap) {
  /** @type {Map<number, any[]>} */
  const rows = new Map();
  for (const seat of seatMap) {
    if (seat.type !== 'couple') continue;
    const row = rows.get(seat.row);
    if (row) row.push(seat);
    else rows.set(seat.row, [seat]);
  }
  /** @type {Map<string, string>} */
  const partners = new Map();
  for (const row of rows.values()) {
    row.sort((a, b) => a.column - b.column);
    for (let i = 0; i + 1 < row.length; i += 2) {
      partners.set(row[i].code, row[i + 1].code);
      partners.set(row[i + 1].code, row[i].code);
    }
  }
  return partners;
}

/** @param {any[]} seats @param {number} from @param {number} count @param {Map<string, string>} partners */
function splitsPair(seats, from, count, partners) {
  /** @type {string[]} */
  const codes = seats.slice(from, from + count).map((/** @type {any} */ seat) => seat.code);
  for (const code of codes) {
    const partner = partners.get(code);
    if (partner !== undefined && codes.indexOf(partner) === -1) return true;
  }
  return false;
}
