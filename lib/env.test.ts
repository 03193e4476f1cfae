import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  flagSetting,
  keyPrefixSetting,
  logLevelSetting,
  optionalFlagSetting,
  optionalTextSetting,
  parseEnv,
} from './env';

const schema = z.object({
  JOBS_ENABLED: flagSetting(true),
  DEMO_LOGIN: optionalFlagSetting,
  LOG_LEVEL: logLevelSetting,
  REDIS_KEY_PREFIX: keyPrefixSetting,
  NAME: optionalTextSetting,
});

describe('configuration convention', () => {
  it('reads flags as 1/0, and true/false as written before', () => {
    for (const [word, on] of [
      ['1', true],
      ['0', false],
      ['true', true],
      ['false', false],
    ] as const) {
      expect(parseEnv('test', schema, { JOBS_ENABLED: word, DEMO_LOGIN: word })).toMatchObject({
        JOBS_ENABLED: on,
        DEMO_LOGIN: on,
      });
    }
  });

  it('fills defaults: flags, LOG_LEVEL info, an empty key prefix; blank text is absent', () => {
    expect(parseEnv('test', schema, { NAME: '  ' })).toEqual({
      JOBS_ENABLED: true,
      DEMO_LOGIN: undefined,
      LOG_LEVEL: 'info',
      REDIS_KEY_PREFIX: '',
      NAME: undefined,
    });
  });

  it('names every bad variable in one error', () => {
    expect(() => parseEnv('edge', schema, { JOBS_ENABLED: 'yes', LOG_LEVEL: 'loud' })).toThrow(
      /^Invalid edge configuration: JOBS_ENABLED: a flag is 1 or 0; LOG_LEVEL: /,
    );
  });
});
