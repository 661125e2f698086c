// The numeric settings of a network service: what the options give, over the defaults.

/**
 * `defaults` with each setting `options` gives as a finite number (above 0 unless `allowZero`); any other
 * value keeps its default, so a caller can pass optional configuration through unchecked.
 */
export function settingsFrom<S extends { [K in keyof S]: number }>(defaults: S, options: { [K in keyof S]?: unknown }, allowZero = false): S {
  const settings = { ...defaults } as { -readonly [K in keyof S]: S[K] };
  for (const key of Object.keys(defaults) as (keyof S)[]) {
    const value = options[key];
    if (typeof value === 'number' && Number.isFinite(value) && (allowZero ? value >= 0 : value > 0)) settings[key] = value as S[keyof S];
  }
  return settings;
}
