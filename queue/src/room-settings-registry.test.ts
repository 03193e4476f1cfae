/**
 * The registry is the one home of a setting's bounds: the operator API's schema, the engine's
 * schema, the translation between their units and the console's inputs must each say exactly
 * what it says. `boundsMismatches` is shown to catch a schema that drifted.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { roomPage } from '../../edge/src/pages/console-pages';
import { apiNameOf, OPERATOR_SETTING_NAMES, ROOM_SETTING_NAMES, settingSpec } from '../../lib/room-settings-registry';
import { operatorSettingsOf, publicSettings, roomUpdateSchema, type RoomUpdate } from './room-update';
import { DEFAULT_SETTINGS, roomSettingsPatchSchema, type RoomSettings } from './settings';

/** Settings whose operator bounds the schema does not accept exactly (min and max in, one beyond each out, no fractions). */
function boundsMismatches(schema: z.ZodType): string[] {
  const accepts = (field: string, value: unknown) => schema.safeParse({ [field]: value }).success;
  const wrong: string[] = [];
  for (const name of OPERATOR_SETTING_NAMES) {
    const spec = settingSpec(name);
    const field = apiNameOf(name);
    if (spec.kind === 'flag') {
      if (!accepts(field, true) || !accepts(field, false) || accepts(field, 1)) wrong.push(field);
      continue;
    }
    const { min, max } = spec.operator!;
    if (
      !accepts(field, min) ||
      !accepts(field, max) ||
      accepts(field, min - 1) ||
      accepts(field, max + 1) ||
      accepts(field, min + 0.5)
    )
      wrong.push(field);
  }
  return wrong;
}

describe('the room-settings registry', () => {
  it("is what the operator API's schema accepts, setting by setting", () => {
    expect(boundsMismatches(roomUpdateSchema)).toEqual([]);
  });

  it('catches a schema whose bound drifted from the registry (the broken variant)', () => {
    const drifted = roomUpdateSchema.and(z.object({ capacity: z.number().max(999_999).optional() }));
    expect(boundsMismatches(drifted)).toEqual(['capacity']);
  });

  it("is what the engine's schema accepts, and every default fits it", () => {
    for (const name of ROOM_SETTING_NAMES) {
      const { min, max } = settingSpec(name).stored;
      expect(roomSettingsPatchSchema.safeParse({ [name]: min }).success, name).toBe(true);
      expect(roomSettingsPatchSchema.safeParse({ [name]: min - 1 }).success, name).toBe(false);
      if (max !== undefined) expect(roomSettingsPatchSchema.safeParse({ [name]: max + 1 }).success, name).toBe(false);
      expect(roomSettingsPatchSchema.safeParse({ [name]: DEFAULT_SETTINGS[name] }).success, name).toBe(true);
    }
  });

  it('lets an operator set nothing a stored room may not hold', () => {
    for (const name of OPERATOR_SETTING_NAMES) {
      const spec = settingSpec(name);
      const scale = spec.scale ?? 1;
      expect(spec.operator!.min * scale, name).toBeGreaterThanOrEqual(spec.stored.min);
      if (spec.stored.max !== undefined) expect(spec.operator!.max * scale, name).toBeLessThanOrEqual(spec.stored.max);
    }
  });

  it('translates every operator setting to engine units and back', () => {
    const update: Record<string, number | boolean> = {};
    for (const name of OPERATOR_SETTING_NAMES) {
      const spec = settingSpec(name);
      update[apiNameOf(name)] = spec.kind === 'flag' ? false : spec.operator!.max;
    }
    const engine = operatorSettingsOf(update as RoomUpdate);
    expect(engine.sessionTtlMs).toBe(86_400_000);
    expect(engine.adaptiveAdmission).toBe(0);
    const room = { ...DEFAULT_SETTINGS, ...engine, opensAtMs: null } as RoomSettings;
    const { state: _state, opensAt: _opensAt, version: _version, engine: _engine, ...view } = publicSettings(room);
    expect(view).toEqual(update);
  });

  it('gives every operator setting a console input with its bounds', async () => {
    const page = String(
      await roomPage(
        { id: 7, title: 'Registry Night', startsAt: '', saleState: 'on_sale', opensAt: '', seatsAvailable: 1 },
        null,
        'csrf',
      ),
    );
    for (const name of OPERATOR_SETTING_NAMES) {
      const spec = settingSpec(name);
      const field = apiNameOf(name);
      const input = new RegExp(
        `<input id="${field}" name="${field}" type="${spec.kind === 'flag' ? 'checkbox' : `number" min="${spec.operator!.min}" max="${spec.operator!.max}`}"`,
      );
      expect(page, field).toMatch(input);
      expect(page, field).toContain(`<label for="${field}">`);
    }
  });
});
