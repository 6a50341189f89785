/** `123456` → `123,456`: token counts read at a glance. */
export function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}
