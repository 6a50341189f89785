const thousands = new Intl.NumberFormat('en-US');

/** `123456` → `123,456`: token counts read at a glance. */
export function formatNumber(value: number): string {
  // One formatter for every call: `toLocaleString` builds a new one each time.
  return thousands.format(value);
}
