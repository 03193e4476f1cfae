// @ts-check
/**
 * Module resolution hooks for running the k6 scripts in a Node worker (k6 is not installed
 * here): `k6`, `k6/http`, `k6/metrics`, `k6/execution` and `k6/crypto` resolve to the shims in this folder.
 */
const SHIMS = {
  k6: 'k6.js',
  'k6/http': 'http.js',
  'k6/metrics': 'metrics.js',
  'k6/execution': 'execution.js',
  'k6/crypto': 'crypto.js',
};

/**
 * @param {string} specifier
 * @param {unknown} context
 * @param {(specifier: string, context: unknown) => Promise<unknown>} next
 */
export async function resolve(specifier, context, next) {
  const shim = /** @type {Record<string, string>} */ (SHIMS)[specifier];
  if (shim) return { url: new URL(`./${shim}`, import.meta.url).href, shortCircuit: true, format: 'module' };
  return next(specifier, context);
}
