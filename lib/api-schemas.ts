/**
 * The response bodies of the public API as zod schemas, shared by the edge's and the core's
 * OpenAPI descriptions (edge/scripts/openapi/, core/src/openapi/), so lib depends on nothing
 * above it. Request bodies are the very schemas the routes validate with, taken by each
 * description from where the routes use them. Response bodies are written here once, from the code that builds them, and the contract tests
 * (test/e2e/openapi-contract.test.ts) hold real responses to them, so neither side can drift.
 * Response objects list what a client may rely on and allow more (`looseObject`): a field added
 * to an answer is not a break, a documented one missing or retyped is.
 */
import { z } from 'zod';
import { apiNameOf, ROOM_SETTING_NAMES, settingSpec } from './room-settings-registry';
import { SEAT_CODE } from './seat-code';

const instant = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const seatCode = z.string().regex(SEAT_CODE).describe('Seat code as printed on the ticket, e.g. F5');
const uuid = z.uuid();

export const errorBody = z
  .object({
    error: z
      .object({
        code: z
          .string()
          .regex(/^[A-Z_]+$/)
          .describe('Stable, machine-readable code (e.g. SEATS_UNAVAILABLE)'),
        message: z.string().describe('What went wrong, in words for a person'),
        retryAfterSeconds: z.number().int().nonnegative().optional().describe('Also sent as the Retry-After header'),
      })
      .catchall(z.unknown())
      .describe(
        'Details that belong to the code travel beside it (e.g. seats for SEATS_UNAVAILABLE, issues for VALIDATION_FAILED)',
      ),
  })
  .strict();

/** A join the room wants proof of work for: the error, and beside it the challenge to solve. */
export const powChallenge = errorBody.extend({
  challenge: z
    .string()
    .describe('Solve: a nonce such that SHA-256 of "<challenge>:<nonce>" starts with `difficulty` zero bits'),
  difficulty: z.number().int().nonnegative().describe('Leading zero bits asked for'),
});

export const demoLoginResponse = z.looseObject({ token: z.string(), customerId: z.string() });
/** The demo login's optional body: `{}`. The server picks the customer id; anything named in it is ignored. */
export const demoLoginRequest = z
  .looseObject({})
  .describe('Send {} (or nothing): the server picks the customer id, and any field sent is ignored');

export const queueAnswer = z.looseObject({
  state: z.enum(['prequeue', 'waiting', 'admitted', 'paused', 'closed', 'sold_out']),
  position: z.number().int().nonnegative().optional().describe('People ahead, while waiting'),
  etaSeconds: z.number().int().nonnegative().optional(),
  lineLength: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Everyone waiting: the line, and the pre-queue not yet placed in it'),
  queueId: z
    .string()
    .regex(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/)
    .optional()
    .describe(
      'A short id of this place to quote to support (operators look it up); none in the pre-queue. Says nothing about the place itself',
    ),
  seatsLeft: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'Seats not sold yet (available, and held by buyers who may not pay), while waiting; absent when admission control is off',
    ),
  seatsLikelyGone: z
    .boolean()
    .optional()
    .describe(
      'The buyers ahead could take every seat left: the sale is effectively over for this place unless some leave without buying',
    ),
  pollAfterMs: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe('Poll again no sooner than this; null when there is nothing to wait for (admitted)'),
  queueToken: z.string().optional().describe('Sent when new or changed: X-Queue-Token for the next polls'),
  accessToken: z
    .string()
    .optional()
    .describe('Once admitted: Bearer token for seat maps, holds, checkout and bookings'),
  sessionExpiresAt: instant.optional().describe('When the admission ends'),
  receipt: z
    .string()
    .optional()
    .describe(
      'On a join: a signed join receipt (ES256 JWT, keys at /api/fairness/keys) of showtime, customer, rank and time, to keep and check later against the admission log (docs/fairness.md)',
    ),
});

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** One entry of the admission log (lib/fairness-chain.ts says what the hash covers). */
export const fairnessLogEntry = z.looseObject({
  seq: z.number().int().positive(),
  kind: z
    .enum(['joined', 'drawn', 'admitted', 'passed_over', 'returned', 'left', 'line_reset'])
    .describe(
      'joined the line (or the pre-queue, rank 0); drawn into the line at opening; admitted (offered a turn); passed over as a walk-away; returned from being passed over; left; line_reset: the room was lost and restored, its line joined again',
    ),
  buyerHash: hex64.describe('SHA-256 of "<salt>:<customer id>": nobody can be identified from the log alone'),
  rank: z.number().int().describe('The ticket issued at the join or by the draw (0: joined the pre-queue)'),
  atMs: z.number().int().describe('When, by the waiting room clock (ms since 1970)'),
  drawIndex: z.number().int().nonnegative().nullable().describe('Drawn entries: index in the sorted pre-queue'),
  drawSize: z.number().int().positive().nullable().describe('Drawn entries: size of the pre-queue'),
  hash: hex64.describe("SHA-256 of the previous hash, a newline and the entry's fields joined by |"),
});

export const fairnessLog = z.looseObject({
  showtimeId: z.string().min(1),
  saleState: z.string(),
  ended: z.boolean().describe('The sale is over (closed, sold out or started): seed, salt and entries are published'),
  commitment: hex64.describe("SHA-256 of the opening draw's seed, published before the sale opened"),
  genesis: hex64.describe('Where the chain starts: SHA-256 of "admission-log|<showtime>|<commitment>"'),
  head: z.looseObject({ seq: z.number().int().nonnegative(), hash: hex64 }).describe('The newest entry (live)'),
  seed: hex64.nullable().describe("The draw's seed, once the sale has ended"),
  salt: hex64.nullable().describe('The salt of buyerHash, once the sale has ended'),
  entries: z.array(fairnessLogEntry).nullable().describe('The whole log, oldest first, once the sale has ended'),
});

export const leaveAnswer = z.looseObject({ state: z.literal('left'), removed: z.boolean() });

export const publicShowtime = z
  .object({
    id: z.number().int(),
    title: z.string(),
    startsAt: instant,
    saleState: z.enum(['on_sale', 'opening_soon', 'sold_out', 'paused', 'closed', 'started']),
    opensAt: instant,
    seatsAvailable: z.number().int().nonnegative(),
    seatsTotal: z.number().int().nonnegative(),
    priceCents: z.number().int().nonnegative(),
    currency: z.string().length(3),
    venue: z.object({ name: z.string(), city: z.string().describe('May be empty') }).describe('Where the showing is'),
    hall: z.object({ name: z.string() }).describe('The hall (screen) within the venue'),
  })
  .catchall(z.unknown());

export const seatMap = z
  .object({
    showtimeId: z.number().int(),
    title: z.string(),
    startsAt: instant,
    saleState: z.string(),
    priceCents: z.number().int(),
    currency: z.string().length(3),
    maxSeatsPerCustomer: z.number().int().positive(),
    holdTtlMs: z.number().int().positive(),
    counts: z.looseObject({
      total: z.number().int(),
      available: z.number().int(),
      held: z.number().int(),
      booked: z.number().int(),
    }),
    seats: z.array(
      z.looseObject({
        code: seatCode,
        row: z.number().int(),
        rowLabel: z.string(),
        column: z.number().int(),
        label: z.string(),
        type: z.enum(['standard', 'couple', 'accessible']),
        status: z.enum(['AVAILABLE', 'HELD', 'BOOKED']).describe('A lapsed hold reads AVAILABLE'),
      }),
    ),
    generatedAt: instant,
  })
  .catchall(z.unknown());

/**
 * The seat map's compact view for load clients (`?view=available`, core/src/seats/seat-availability.ts):
 * per row one character per column and the codes at a fixed width, found by index arithmetic.
 */
export const seatAvailability = z
  .object({
    showtimeId: z.number().int(),
    saleState: z.string(),
    counts: z.looseObject({
      total: z.number().int(),
      available: z.number().int(),
      held: z.number().int(),
      booked: z.number().int(),
    }),
    codeWidth: z.number().int().min(1).max(8).describe('Characters per seat code in `codes`'),
    rows: z.array(
      z.looseObject({
        row: z.number().int(),
        rowLabel: z.string(),
        firstColumn: z.number().int().describe('The column of the first character of `seats`'),
        seats: z
          .string()
          .regex(/^[a().-]*$/)
          .describe(
            'Per column: a free, ( or ) a free couple seat (first or second of its pair), - held or booked, . no seat',
          ),
        codes: z
          .string()
          .describe(
            'The seat codes, each padded with spaces to codeWidth: the seat at position i is codes.substr(i × codeWidth, codeWidth), trimmed',
          ),
      }),
    ),
    generatedAt: instant,
  })
  .catchall(z.unknown());

/** What a seat-map read answers: the full map, or with `view=available` the compact view. */
export const seatMapAnswer = z.union([seatMap, seatAvailability]);

export const holdCreated = z.looseObject({ holdId: uuid, expiresAt: instant, seats: z.array(seatCode) });

export const holdView = z.looseObject({
  holdId: uuid,
  showtimeId: z.number().int(),
  status: z.enum(['ACTIVE', 'EXPIRED', 'CANCELLED', 'CONFIRMED']),
  seats: z.array(seatCode),
  expiresAt: instant,
  createdAt: instant,
  bookingId: uuid.optional(),
});

export const checkoutSession = z.looseObject({
  paymentId: z.string(),
  checkoutUrl: z.url().describe("The gateway's hosted payment page"),
  expiresAt: instant.describe('The session ends before the hold does'),
  amountCents: z.number().int().positive(),
  currency: z.string().length(3),
  holdId: uuid,
});

export const booking = z.looseObject({
  bookingId: uuid,
  showtimeId: z.number().int(),
  holdId: uuid,
  paymentId: z.string(),
  status: z.enum(['CONFIRMED', 'FAILED', 'REFUNDED', 'CANCELLED']),
  seats: z.array(seatCode),
  amountCents: z.number().int(),
  currency: z.string().length(3),
  paymentStatus: z.string(),
  createdAt: instant,
});

export const cancellationQuote = z.looseObject({
  bookingId: uuid,
  status: z.string(),
  cancellable: z.boolean(),
  refundCents: z.number().int().nonnegative().describe("What the showtime's refund policy gives back now"),
  percent: z.number().int().min(0).max(100),
  amountCents: z.number().int(),
  currency: z.string().length(3),
  startsAt: instant,
});

export const cancellation = z.looseObject({
  bookingId: uuid,
  status: z.literal('CANCELLED'),
  refundCents: z.number().int().nonnegative(),
  percent: z.number().int().min(0).max(100),
  currency: z.string().length(3),
  seats: z.array(seatCode),
});

/** One of the buyer's bookings in GET /api/bookings, with what cancelling would give back now. */
export const listedBooking = z.looseObject({
  bookingId: uuid,
  showtimeId: z.number().int(),
  title: z.string(),
  startsAt: instant,
  status: z.enum(['CONFIRMED', 'FAILED', 'REFUNDED', 'CANCELLED']),
  seats: z.array(seatCode).describe('Empty for general-admission places (fareClass and quantity say them)'),
  fareClass: z.string().optional(),
  quantity: z.number().int().positive().optional(),
  amountCents: z.number().int(),
  currency: z.string().length(3),
  createdAt: instant,
  refundCents: z.number().int().nonnegative().optional().describe('What a cancellation or refund gave back'),
  cancellable: z.boolean(),
  cancelRefundCents: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("When cancellable: what the showtime's refund policy gives back now"),
  cancelPercent: z.number().int().min(0).max(100).optional(),
});

export const bookingList = z.object({
  customerId: z.string(),
  bookings: z
    .array(listedBooking)
    .describe("Newest first, at most 100; with a turn's access token, that showtime's only"),
});

/** A fare class with its live counts (operators). */
export const fareClass = z.object({
  fareClass: z.string().regex(/^[A-Z][A-Z0-9_]{0,15}$/),
  label: z.string(),
  priceCents: z.number().int().nonnegative().describe("The class's own price, or the showtime's"),
  ownPrice: z.boolean(),
  seated: z.boolean().describe('Assigned seats (capacity = seats, never overbooked) or general-admission places'),
  buckets: z.number().int().min(1).max(64).describe('Counter rows the class is split into (hot-row spreading)'),
  capacity: z.number().int().nonnegative(),
  overbookLimit: z.number().int().nonnegative(),
  sold: z.number().int().nonnegative(),
  held: z.number().int().nonnegative().describe('Held by live holds'),
  heldLapsed: z
    .number()
    .int()
    .nonnegative()
    .describe('Held by holds that ran out, reclaimed by the next hold that needs them'),
  available: z.number().int().nonnegative(),
});

export const fareClassList = z.object({ showtimeId: z.number().int(), fareClasses: z.array(fareClass) });

export const seatClassChanged = z.object({
  showtimeId: z.number().int(),
  fareClass: z.string(),
  seats: z.array(seatCode),
  moved: z.array(seatCode).describe('Seats whose class changed (the others were in it already)'),
  created: z.boolean().describe('The class was new (created at the showtime price)'),
});

/** The gateway's webhook, as the core parses it after the signature check. */
export const paymentWebhook = z.object({
  id: z.string(),
  type: z
    .string()
    .describe('payment.succeeded | payment.failed | refund.succeeded (others are acknowledged and ignored)'),
  created: z.number().int(),
  data: z
    .object({ paymentId: z.string(), amount: z.number().int(), currency: z.string(), reference: z.string() })
    .catchall(z.unknown()),
});

const count = z.number().int().nonnegative();
const saleState = z
  .enum(['on_sale', 'opening_soon', 'sold_out', 'paused', 'closed', 'started'])
  .describe('Derived by the database clock from the switch, the times and the seats');
const roomState = z.enum(['scheduled', 'opening', 'open', 'paused', 'closed', 'sold_out']);

/** A room's settings as operators read and set them (seconds, not the engine's milliseconds): room-settings-registry.ts. */
const publicSettingShape = Object.fromEntries(
  ROOM_SETTING_NAMES.filter((name) => settingSpec(name).shows.includes('public view')).map((name) => {
    const spec = settingSpec(name);
    return [
      apiNameOf(name),
      spec.kind === 'flag'
        ? z.boolean().describe(spec.description)
        : count.describe(`${spec.description} (${spec.unit})`),
    ];
  }),
);
export const roomSettingsView = z.looseObject({
  ...publicSettingShape,
  state: roomState,
  opensAt: instant.nullable(),
  version: z.number().int().describe("The sale control's version these settings carry"),
});

/** One operator change: who, from where, what it was before and after, when. */
export const auditEntry = z.object({
  actor: z.string().describe('The operator (X-Operator), or admin-token'),
  actorVia: z
    .enum(['token', 'console', 'unknown'])
    .describe('How the actor signed in: the admin token, or a console session (unknown: before this was kept)'),
  source: z.string().nullable().describe("The operator's address, as the edge saw it"),
  action: z.string().describe('room.update, showtime.update, fare.update, …'),
  showtimeId: z.string(),
  before: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('The fields the change moved, as they were (null: created)'),
  after: z.record(z.string(), z.unknown()).nullable().describe('The same fields after the change'),
  version: z.number().int(),
  atMs: z.number().int(),
  at: instant,
});

export const auditPage = z.object({
  showtimeId: z.string(),
  entries: z.array(auditEntry).describe('Newest first'),
});

/** The operator's room read (and the answer to a change): settings, live numbers, the sale state, recent changes. */
export const roomControl = z.looseObject({
  showtimeId: z.string(),
  settings: roomSettingsView,
  stats: z
    .looseObject({
      state: roomState,
      waiting: count,
      prequeue: count.describe('Joined before the opening, not yet placed by the draw'),
      offered: count,
      active: count,
      admittedLastMinute: count,
      joined: count,
      admitted: count,
      abandoned: count,
      etaLastMs: z.number().nullable(),
      turnMs: z
        .number()
        .nullable()
        .describe('How long a turn lasts as the wait estimate takes it (claim to end); null until known'),
      turnFrom: z
        .enum(['room', 'history'])
        .nullable()
        .describe(
          "room: learned from this room's turns; history: from the cinema's recent rooms, until this one has ended three",
        ),
      seedHash: z.string().nullable().describe("Commitment to the opening draw's seed"),
      seed: z.string().nullable().describe('Revealed after the draw'),
    })
    .describe('Live counters from the queue'),
  effectiveAdmitPerMinute: z
    .number()
    .nonnegative()
    .describe('What the room admits now (adaptive admission may be below admitPerMinute)'),
  admission: z
    .looseObject({
      adaptive: z.boolean(),
      targetPerMinute: z.number(),
      effectiveAdmitPerMinute: z.number(),
      reason: z.string(),
    })
    .describe('Why the effective rate is what it is'),
  saleState: saleState
    .nullable()
    .describe('The sale state as the core last said it (null: the core has not answered this edge yet)'),
  version: z.number().int(),
  audit: z.array(auditEntry).optional().describe('The last 20 changes (on reads)'),
  core: z
    .object({
      fresh: z.boolean().describe("The core answered within the view's budget (OPERATOR_VIEW_CORE_BUDGET_MS)"),
      answeredAt: z.iso.datetime().nullable().describe('When the core last answered this edge for this showtime'),
      staleSince: z.iso.datetime().nullable().describe('Since when the view has had no fresh answer from the core'),
      reason: z.enum(['slow', 'unavailable']).nullable(),
      stale: z.array(z.string()).describe("Fields that are the core's and not current"),
    })
    .optional()
    .describe(
      "On reads: how current the core's part (sale state, version, audit) is; the room's part is always read from the queue",
    ),
  applied: z.literal(true).optional().describe('On a change: saved and applied to the room'),
});

/** A change saved in PostgreSQL while the queue's store was away: it is applied when the store is back. */
export const roomChangeSaved = z.looseObject({
  showtimeId: z.string(),
  saleState,
  version: z.number().int(),
  applied: z.literal(false),
  settings: z.record(z.string(), z.unknown()).describe('The complete settings the room will get (engine units)'),
});
export const queueIdLookup = z.object({
  showtimeId: z.string(),
  queueId: z.string().describe('The id, as the buyer was shown it'),
  ticket: z.number().int().positive().describe("The place's arrival ticket"),
  status: z
    .enum(['waiting', 'admitted', 'not_in_line'])
    .describe('not_in_line: the turn is over, the buyer left, or was passed over'),
  customerId: z.string().nullable(),
  position: z.number().int().positive().nullable().describe('Place in line, while waiting'),
  turnExpiresAt: instant.nullable().describe('End of the live turn, when admitted'),
  lineLength: z.number().int().nonnegative(),
});

export const health = z.looseObject({
  status: z.literal('ok'),
  shedding: z
    .boolean()
    .optional()
    .describe(
      'Node: the event loop lags past SHED_LAG_MS and joins, purchases and other costly requests are answered 503 BUSY',
    ),
  eventLoopLagMs: z.number().int().nonnegative().optional().describe('Node: sustained event-loop lag'),
  coreCallsInFlight: z.number().int().nonnegative().optional().describe('Calls to the core in flight in this process'),
});
export const readiness = z.looseObject({
  status: z.enum(['ready', 'degraded', 'not_ready']),
  redis: z.enum(['ok', 'down']),
  core: z.enum(['ok', 'down']),
});
export const jwks = z.looseObject({ keys: z.array(z.looseObject({ kty: z.string(), kid: z.string() })) });
