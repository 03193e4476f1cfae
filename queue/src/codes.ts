/**
 * Lua scripts refuse with negative codes; this is the one place that names them. Refusals
 * are returned as values (`{ ok: false, code, message }`), never thrown.
 */
export const RefusalCode = {
  UnknownRoom: -1,
  RoomClosed: -2,
  SoldOut: -3,
  NotOffered: -4,
  OfferExpired: -5,
  TurnExpired: -6,
  AlreadyOpened: -7,
  DrawStale: -8,
  NotOpening: -9,
  CostExceedsCapacity: -10,
  NotAdmitted: -11,
  AddressCap: -12,
  /** The seat gate of the showtime is not built (never, or Redis lost it): the gate's caller builds it, never a buyer-facing refusal. */
  GateNotBuilt: -20,
} as const;

export type Refusal =
  | 'unknown_room'
  | 'room_closed'
  | 'sold_out'
  | 'not_offered'
  | 'offer_expired'
  | 'turn_expired'
  | 'already_opened'
  | 'draw_stale'
  | 'not_opening'
  | 'cost_exceeds_capacity'
  | 'not_admitted'
  | 'address_cap'
  | 'invalid_input';

export interface Refused {
  ok: false;
  code: Refusal;
  message: string;
}

const byCode: Record<number, [Refusal, string]> = {
  [RefusalCode.UnknownRoom]: ['unknown_room', 'No waiting room is configured for this showtime'],
  [RefusalCode.RoomClosed]: ['room_closed', 'The waiting room is closed'],
  [RefusalCode.SoldOut]: ['sold_out', 'The showtime is sold out'],
  [RefusalCode.NotOffered]: ['not_offered', 'No place has been offered to this customer yet'],
  [RefusalCode.OfferExpired]: ['offer_expired', 'The offered place was not claimed in time'],
  [RefusalCode.TurnExpired]: ['turn_expired', 'The turn has passed; join the line again'],
  [RefusalCode.AlreadyOpened]: ['already_opened', 'A room that has opened cannot be scheduled again'],
  [RefusalCode.DrawStale]: ['draw_stale', 'The pre-queue changed while the draw was computed'],
  [RefusalCode.NotOpening]: ['not_opening', 'The room is not waiting for its opening draw'],
  [RefusalCode.CostExceedsCapacity]: ['cost_exceeds_capacity', 'The cost is larger than a bucket can ever hold'],
  [RefusalCode.NotAdmitted]: ['not_admitted', 'This customer holds no live admission for the showtime'],
  [RefusalCode.AddressCap]: [
    'address_cap',
    'This network address has taken as many places in this line as the room allows',
  ],
};

export function refusalFromCode(code: number): Refused {
  const known = byCode[code];
  if (!known) throw new RangeError(`unknown script reply code ${code}`);
  return { ok: false, code: known[0], message: known[1] };
}

export function invalidInput(message: string): Refused {
  return { ok: false, code: 'invalid_input', message };
}
