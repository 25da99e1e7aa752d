// A count with its noun, singular for one: "1 trajectory", "2 trajectories". One helper, so that no
// message says "1 trajectories" because its author wrote the plural into a template.

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The noun for a count of trajectories, which is not made by adding an s. */
export const trajectories = (n: number) => plural(n, 'trajectory', 'trajectories');

let grouping: Intl.NumberFormat | undefined;

/**
 * "1,234,567": a count grouped by thousands, the same on every machine. One formatter, made once:
 * `toLocaleString('en-US')` makes one on every call (measured: 155 ms of a traces send's main thread,
 * redrawing its progress).
 */
export function thousands(n: number): string {
  grouping ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });
  return grouping.format(n);
}

/** A count grouped by thousands, with its noun: "1 span", "12,000 spans". */
export const counted = (n: number, one: string, many = `${one}s`) =>
  `${thousands(n)} ${n === 1 ? one : many}`;
