/**
 * A seeded random source (mulberry32), so that generated examples and corpora are the same
 * bytes on every run: `random()` in [0, 1), `between(low, high)` inclusive, `pick(items)`.
 */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    random,
    between: (low: number, high: number) => low + Math.floor(random() * (high - low + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T,
  };
}
