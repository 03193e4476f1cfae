/**
 * Sale control: the one service through which a showtime's sale state, its waiting room's
 * settings and the operator audit log change. PostgreSQL is the source of truth; the edge and
 * the queue ticker copy `room` into Redis, stamped with `version`, and restore it from here
 * whenever Redis lost it or holds an older copy.
 */
import type { Sql } from 'postgres';
import { AppError, conflict, notFound, unprocessable } from '../../../lib/errors';
import {
  burstFor,
  DEFAULT_SETTINGS,
  type RoomSettings,
  type RoomSettingsPatch,
  type RoomState,
} from '../../../queue/src/index';
import { operatorSettingsOf, publicSettings, type RoomUpdate } from '../../../queue/src/room-update';
import {
  findShowtime,
  listCurrentShowtimes,
  updateShowtime,
  type SaleSwitch,
  type ShowtimeChanges,
  type ShowtimeRow,
} from '../catalog/showtime-repo';
import type { Db } from '../db/connect';
import { mapDatabaseError } from '../db/sql-errors';
import { auditEntryView, insertAudit, listAudit, lockForAudit, type Operator } from '../audit/audit-log';
import { findRoomSettings, listRoomSettings, lockShowtime, mergeRoomSettings, type RoomSettingsRow } from './sale-repo';
import { findFairness, listFairness, type FairnessRow } from '../fairness/fairness-repo';
import { endTurns, listLiveTurns, recordTurn, type LiveTurn } from './turn-repo';

export interface SaleControl {
  showtimeId: number;
  version: number;
  /** Derived by the database clock: opening_soon, on_sale, paused, sold_out, closed, started. */
  saleState: ShowtimeRow['sale_state'];
  /** The operator's switch as stored. */
  saleSetting: SaleSwitch;
  opensAt: string;
  startsAt: string;
  /** Only what an operator set, in engine units (the rest are defaults). */
  settings: RoomSettingsRow['settings'];
  /** The complete settings the room in Redis must have (engine units), stamped with the version. */
  room: RoomSettingsPatch & { state: Exclude<RoomState, 'opening'>; version: number };
  /**
   * The opening draw's seed and its published commitment, kept in PostgreSQL with the showtime
   * (fairness_showtime): the room takes its seed from here, so a room Redis lost draws with the
   * seed whose commitment was published. Operator-only, like the rest of this answer.
   */
  draw?: { seed: string; commitment: string };
}

export type { Operator };

/** The waiting room's state for a derived sale state. */
export function roomStateFor(
  row: Pick<ShowtimeRow, 'sale_state' | 'sale_state_setting' | 'seats_booked' | 'seats_total'>,
): SaleControl['room']['state'] {
  switch (row.sale_state) {
    case 'closed':
    case 'started':
      return 'closed';
    case 'paused':
      return 'paused';
    case 'opening_soon':
      return 'scheduled';
    case 'sold_out':
      // No seat free right now, but live holds may still lapse: only a sale that is booked out
      // (or that the operator declared sold out) tells its line so.
      return row.sale_state_setting === 'SOLD_OUT' || row.seats_booked >= row.seats_total ? 'sold_out' : 'open';
    default:
      return 'open';
  }
}

export function saleControlOf(row: ShowtimeRow, settingsRow: RoomSettingsRow): SaleControl {
  const { state: _state, opensAtMs: _opensAtMs, ...defaults } = { ...DEFAULT_SETTINGS, opensAtMs: null };
  // A burst the operator did not set follows the rate (a few seconds' worth), not the default
  // room's: 50 at once is 25 s of a 120-a-minute room.
  const admitBurst =
    settingsRow.settings.admitBurst ?? burstFor(settingsRow.settings.admitPerMinute ?? defaults.admitPerMinute);
  return {
    showtimeId: row.id,
    version: settingsRow.version,
    saleState: row.sale_state,
    saleSetting: row.sale_state_setting,
    opensAt: row.sale_opens_at.toISOString(),
    startsAt: row.starts_at.toISOString(),
    settings: settingsRow.settings,
    room: {
      ...defaults,
      ...settingsRow.settings,
      admitBurst,
      state: roomStateFor(row),
      opensAtMs: row.sale_opens_at.getTime(),
      version: settingsRow.version,
    },
  };
}

function withDraw(control: SaleControl, fairness: FairnessRow | null): SaleControl {
  return fairness ? { ...control, draw: { seed: fairness.seed, commitment: fairness.commitment } } : control;
}

/**
 * What the audit log compares of a sale before and after a change: every room setting an
 * operator can set (the public view: bursts and buckets included), the sale state and switch,
 * and the showtime's own fields a PATCH can change. insertAudit keeps the ones that moved.
 */
function auditView(control: SaleControl, row: ShowtimeRow): Record<string, unknown> {
  const {
    engine: _engine,
    version: _version,
    ...view
  } = publicSettings({
    ...control.room,
    opensAtMs: control.room.opensAtMs ?? null,
  } as RoomSettings);
  return {
    ...view,
    saleState: control.saleState,
    saleSetting: row.sale_state_setting,
    title: row.title,
    startsAt: row.starts_at.toISOString(),
    priceCents: row.price_cents,
    holdTtlSeconds: Math.round(row.hold_ttl_ms / 1000),
    maxSeatsPerCustomer: row.max_seats_per_customer,
    idealRow: row.ideal_row,
  };
}

const SWITCH_FOR_STATE = {
  open: 'OPEN',
  scheduled: 'OPEN',
  paused: 'PAUSED',
  closed: 'CLOSED',
  sold_out: 'SOLD_OUT',
} as const;

export interface SaleChange {
  update?: RoomUpdate;
  /** Catalog fields changed in the same transaction (PATCH /admin/showtimes/:id). */
  catalog?: ShowtimeChanges;
}

export function createSaleControlService(deps: { sql: Sql }) {
  async function read(db: Db, showtimeId: number): Promise<SaleControl | null> {
    const [row, settings, fairness] = await Promise.all([
      findShowtime(db, showtimeId),
      findRoomSettings(db, showtimeId),
      findFairness(db, showtimeId),
    ]);
    return row && settings ? withDraw(saleControlOf(row, settings), fairness) : null;
  }

  /** The switch and opening time an operator's room update asks for, checked against the sale as it is. */
  function catalogChangesFor(update: RoomUpdate, row: ShowtimeRow, nowMs: number): ShowtimeChanges {
    const changes: ShowtimeChanges = {};
    const opensAt = update.opensAt === undefined ? null : new Date(update.opensAt);
    const opened = row.sale_opens_at.getTime() <= nowMs;
    if (opensAt) {
      if (opensAt >= row.starts_at)
        throw unprocessable('VALIDATION_FAILED', 'opensAt must be before the showtime starts', {
          issues: [{ path: ['opensAt'], message: 'must be before startsAt' }],
        });
      if (opened && opensAt.getTime() > nowMs)
        throw conflict('ALREADY_OPENED', 'This sale has already opened; it cannot be scheduled again');
      changes.opensAt = opensAt;
    }
    if (update.state === undefined) return changes;
    changes.saleState = SWITCH_FOR_STATE[update.state];
    if (update.state === 'open' && !opened && !opensAt) changes.opensAt = new Date(nowMs);
    if (update.state === 'scheduled' && opened && !opensAt)
      throw conflict('ALREADY_OPENED', 'This sale has already opened; it cannot be scheduled again');
    return changes;
  }

  return {
    read: (showtimeId: number) => read(deps.sql, showtimeId),

    /** The control plus the turns still live: what a room Redis lost is restored from. */
    async readForRestore(showtimeId: number): Promise<(SaleControl & { turns: LiveTurn[] }) | null> {
      const control = await read(deps.sql, showtimeId);
      return control
        ? { ...control, turns: control.room.state === 'closed' ? [] : await listLiveTurns(deps.sql, showtimeId) }
        : null;
    },

    /** Records a turn the waiting room granted; false when the showtime does not exist. */
    recordTurn: (showtimeId: number, turn: LiveTurn) => recordTurn(deps.sql, showtimeId, turn),

    /** The customer left the line: their turns (granted by `grantedBefore`, when given) are over. */
    endTurns: (showtimeId: number, customerId: string, grantedBefore: Date | null = null) =>
      endTurns(deps.sql, showtimeId, customerId, grantedBefore),

    /** Every showtime whose room matters now (for the edge's and the ticker's sync). */
    async listCurrent(limit = 500): Promise<SaleControl[]> {
      const rows = await listCurrentShowtimes(deps.sql, limit);
      const settings = new Map(
        (
          await listRoomSettings(
            deps.sql,
            rows.map((row) => row.id),
          )
        ).map((s) => [s.showtime_id, s]),
      );
      const draws = new Map(
        (
          await listFairness(
            deps.sql,
            rows.map((row) => row.id),
          )
        ).map((f) => [Number(f.showtime_id), f]),
      );
      return rows.flatMap((row) => {
        const stored = settings.get(row.id);
        return stored ? [withDraw(saleControlOf(row, stored), draws.get(row.id) ?? null)] : [];
      });
    },

    /**
     * Applies an operator's change in one transaction: the showtime row is locked, the switch
     * moves along the sale state machine (the trigger refuses anything else and logs the
     * move), the settings merge and the version grows, and the audit entry is written.
     */
    async change(
      showtimeId: number,
      change: SaleChange,
      operator: Operator,
      action = 'room.update',
    ): Promise<SaleControl> {
      try {
        return await deps.sql.begin(async (tx) => {
          if (!(await lockShowtime(tx, showtimeId))) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
          const locked = (await lockForAudit(tx, showtimeId))!;
          const [row, settingsRow, [clock]] = await Promise.all([
            findShowtime(tx, showtimeId),
            findRoomSettings(tx, showtimeId),
            tx<{ now: Date }[]>`SELECT now() AS now`,
          ]);
          const before = saleControlOf(row!, settingsRow!);
          const changes: ShowtimeChanges = {
            ...change.catalog,
            ...(change.update ? catalogChangesFor(change.update, row!, clock!.now.getTime()) : {}),
          };
          if (changes.saleState !== undefined) changes.saleStateCause = `${action} by ${operator.actor}`;
          if (Object.keys(changes).length > 0) await updateShowtime(tx, showtimeId, changes);
          const settings = change.update ? operatorSettingsOf(change.update) : {};
          if (Object.keys(settings).length > 0) await mergeRoomSettings(tx, showtimeId, settings);
          // Closing ends every turn, here as in Redis, so a restore cannot bring one back.
          if (changes.saleState === 'CLOSED') await endTurns(tx, showtimeId, null);
          const [after, afterRow] = await Promise.all([read(tx, showtimeId), findShowtime(tx, showtimeId)]);
          await insertAudit(
            tx,
            {
              showtimeId,
              operator,
              action,
              before: auditView(before, row!),
              after: auditView(after!, afterRow!),
            },
            locked.version,
          );
          return (await read(tx, showtimeId))!;
        });
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (typeof error === 'object' && error !== null && (error as { code?: string }).code === 'WRT09') {
          throw conflict('INVALID_SALE_TRANSITION', (error as Error).message);
        }
        throw mapDatabaseError(error);
      }
    },

    async audit(showtimeId: number, limit: number) {
      return (await listAudit(deps.sql, showtimeId, limit)).map(auditEntryView);
    },
  };
}

export type SaleControlService = ReturnType<typeof createSaleControlService>;
