import { describe, expect, it } from 'vitest';
import { roomUpdateSchema } from './room-update';
import { POW_MAX_BITS, POW_OPERATOR_MAX_BITS, roomSettingsPatchSchema } from './settings';

describe('proof-of-work bounds', () => {
  it('an operator may ask at most the bits a phone solves in seconds', () => {
    expect(
      roomUpdateSchema.safeParse({ powDifficulty: POW_OPERATOR_MAX_BITS, powMaxDifficulty: POW_OPERATOR_MAX_BITS })
        .success,
    ).toBe(true);
    expect(roomUpdateSchema.safeParse({ powDifficulty: POW_OPERATOR_MAX_BITS + 1 }).success).toBe(false);
    expect(roomUpdateSchema.safeParse({ powMaxDifficulty: 32 }).success).toBe(false);
  });

  it('a room stored with more from before still restores (the edge caps what it asks)', () => {
    expect(
      roomSettingsPatchSchema.safeParse({ powDifficulty: POW_MAX_BITS, powMaxDifficulty: POW_MAX_BITS }).success,
    ).toBe(true);
  });
});
