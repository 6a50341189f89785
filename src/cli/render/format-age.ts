/** `just now`, `5 min ago`, `3h ago`, `2 days ago`: how long before `now` a moment was. */
export function formatAge(moment: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - moment.getTime()) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
  const days = Math.round(seconds / 86_400);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}
