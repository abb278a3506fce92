/**
 * A short human duration for table cells (at most 5 characters): `0.3s`, `42s`, `5m`, `3h`,
 * `2d`.
 */
export function shortDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(1)}s`;
  if (abs < 60_000) return `${sign}${Math.round(abs / 1000)}s`;
  if (abs < 3_600_000) return `${sign}${Math.round(abs / 60_000)}m`;
  if (abs < 86_400_000) return `${sign}${Math.round(abs / 3_600_000)}h`;
  return `${sign}${Math.round(abs / 86_400_000)}d`;
}
