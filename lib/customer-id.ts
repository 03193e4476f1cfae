/**
 * Customer ids end up in Redis key names, hash fields and, in places, as JavaScript object
 * keys. The alphabet keeps them out of key syntax (no braces, spaces or colons games beyond
 * the allowed ones); the prototype check keeps names such as `__proto__` or `constructor`
 * from ever meaning something to an object they index.
 */
export const CUSTOMER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,128}$/;

export function isValidCustomerId(customerId: unknown): customerId is string {
  return (
    typeof customerId === 'string' &&
    CUSTOMER_ID_PATTERN.test(customerId) &&
    !(customerId in Object.prototype) &&
    customerId !== 'prototype'
  );
}
