/**
 * Counts in messages a person reads: "1 result", "20 results", "0 files" — never "result(s)" or "1 files".
 */

/** `n` and the noun, singular for exactly 1, else `plural` (default: the noun + "s"). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
