import { describe, expect, it } from 'vitest';
import { parseCoreConfig } from '../core/src/config';
import { configFromEnv } from '../payment-sandbox/src/config';
import { checkSecretLength, MIN_WEBHOOK_SECRET_BYTES } from './secrets-policy';

type LengthCheck = typeof checkSecretLength;
const long = 'whsec_' + 'k'.repeat(26); // 32 bytes
const short = 'whsec_' + 'k'.repeat(25); // 31 bytes
const wideShort = 'é'.repeat(20); // 20 characters but 40 bytes: long enough
const narrowLooksLong = '\u{1F511}'.repeat(7); // 14 UTF-16 units, 28 bytes: too short

/** What any correct policy does; a broken variant must fail at least one of these. */
function refusals(check: LengthCheck): boolean[] {
  const refused = (secrets: string[], production = true) => {
    try {
      check({
        service: 'core',
        name: 'PAYMENT_WEBHOOK_SECRET',
        secrets,
        minBytes: MIN_WEBHOOK_SECRET_BYTES,
        production,
      });
      return false;
    } catch {
      return true;
    }
  };
  return [
    refused([long]) === false,
    refused([short]) === true,
    refused([long, short]) === true, // every secret of a rotation counts
    refused([short], false) === false, // development keeps short secrets
    refused([wideShort]) === false,
    refused([narrowLooksLong]) === true, // bytes, not characters
  ];
}

describe('PAYMENT_WEBHOOK_SECRET length in production', () => {
  it('refuses any secret under 32 bytes, counted in UTF-8 bytes, in every rotation slot', () => {
    expect(refusals(checkSecretLength)).toEqual(Array(6).fill(true));
  });

  it('the core and the payment sandbox refuse to start with a short secret in production', () => {
    const core = {
      NODE_ENV: 'production',
      ADMIN_TOKEN: 'a'.repeat(32),
      CORE_SERVICE_TOKEN: 's'.repeat(32),
      TOKEN_PUBLIC_JWKS: '{"keys":[]}',
    };
    expect(() => parseCoreConfig({ ...core, PAYMENT_WEBHOOK_SECRET: short })).toThrow(/at least 32 bytes/);
    expect(() => parseCoreConfig({ ...core, PAYMENT_WEBHOOK_SECRET: `${long},${short}` })).toThrow(/at least 32 bytes/);
    expect(parseCoreConfig({ ...core, PAYMENT_WEBHOOK_SECRET: long }).webhookSecrets).toEqual([long]);
    expect(() => configFromEnv({ NODE_ENV: 'production', PAYMENT_WEBHOOK_SECRET: short })).toThrow(/at least 32 bytes/);
    expect(configFromEnv({ NODE_ENV: 'production', PAYMENT_WEBHOOK_SECRET: long }).config.webhookSecrets).toEqual([
      long,
    ]);
    expect(configFromEnv({ PAYMENT_WEBHOOK_SECRET: short }).config.webhookSecrets).toEqual([short]);
  });

  describe('broken variants the policy test catches', () => {
    it('counting characters instead of bytes', () => {
      const byCharacters: LengthCheck = (o) => {
        if (o.production && o.secrets.some((s) => s.length < o.minBytes)) throw new Error('short');
      };
      expect(refusals(byCharacters)).toContain(false);
    });

    it('checking only the first secret of a rotation', () => {
      const firstOnly: LengthCheck = (o) => checkSecretLength({ ...o, secrets: o.secrets.slice(0, 1) });
      expect(refusals(firstOnly)).toContain(false);
    });

    it('no check at all (the old behaviour)', () => {
      expect(refusals(() => {})).toContain(false);
    });
  });
});
