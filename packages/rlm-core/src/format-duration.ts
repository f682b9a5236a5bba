/** `850 ms`, `3 s`, `2.5 s`, `3 min 2 s`: a duration for a one-line message. */
export function formatDuration(ms: number): string {
  const rounded = Math.max(0, Math.round(ms));
  if (rounded < 1000) return `${rounded} ms`;
  if (rounded < 60_000) {
    const seconds = rounded < 10_000 ? Math.round(rounded / 100) / 10 : Math.round(rounded / 1000);
    return `${seconds} s`;
  }
  const totalSeconds = Math.round(rounded / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}
