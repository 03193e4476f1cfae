import { describe, expect, it } from 'vitest';
import { admissionTiles, reasonWords, turnWords, validateAdmission, type AdmissionView } from './admission-controls';

const view: AdmissionView = {
  adaptive: true,
  targetPerMinute: 600,
  floorPerMinute: 60,
  ceilingPerMinute: 600,
  effectiveAdmitPerMinute: 150,
  reason: 'slow_holds',
  detail: 'holds take 2100 ms (p95; limit 800 ms)',
  seatsLeft: 10,
  seatsPerHold: 1.5,
  turnCap: 9,
  turnsHeld: 4,
};
const current = {
  adaptiveAdmission: true,
  admitFloorPerMinute: 0,
  admitCeilingPerMinute: 0,
  inventoryMarginPercent: 25,
};
const form = {
  adaptiveAdmission: true,
  admitFloorPerMinute: '0',
  admitCeilingPerMinute: '0',
  inventoryMarginPercent: '25',
};

describe('admission controls', () => {
  it('says target against effective, and why, in words', () => {
    expect(admissionTiles(view)).toEqual({
      admitTarget: '600 a minute',
      admitEffective: '150 a minute',
      seatsLeft: '10 (about 1.5 a buyer)',
      turnCap: '4 of 9',
      admitRange: '60 to 600 a minute',
    });
    expect(reasonWords(view)).toBe('Cut: holds are slow (holds take 2100 ms (p95; limit 800 ms)).');
    expect(reasonWords({ ...view, reason: 'off', adaptive: false })).toBe(
      'Off for this room: admitting at the rate as set.',
    );
    expect(admissionTiles(null).admitEffective).toBe('—');
  });

  it('says how long a turn lasts and whose turns say so', () => {
    expect(turnWords(9_200, 'room')).toBe("9 seconds · this room's turns");
    expect(turnWords(150_000, 'history')).toBe('about 3 minutes · from recent sales, until this room has its own');
    expect(turnWords(null, null)).toBe('not known yet');
    expect(turnWords(undefined, 'room')).toBe('not known yet');
  });

  it('sends only what changed, and refuses bad values in plain words', () => {
    expect(validateAdmission(form, current)).toEqual({ ok: true, change: {} });
    expect(validateAdmission({ ...form, adaptiveAdmission: false }, current)).toEqual({
      ok: true,
      change: { adaptiveAdmission: false },
    });
    expect(validateAdmission({ ...form, admitFloorPerMinute: '100', admitCeilingPerMinute: '900' }, current)).toEqual({
      ok: true,
      change: { admitFloorPerMinute: 100, admitCeilingPerMinute: 900 },
    });
    expect(validateAdmission({ ...form, admitFloorPerMinute: '900', admitCeilingPerMinute: '100' }, current)).toEqual({
      ok: false,
      message: 'The floor must not be above the ceiling.',
    });
    expect(validateAdmission({ ...form, inventoryMarginPercent: '-1' }, current)).toEqual({
      ok: false,
      message: 'The margin over the seats left must be a whole number from 0 to 1,000.',
    });
  });
});
