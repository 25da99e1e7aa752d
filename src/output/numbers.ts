/** A number for people: four significant digits; exponent form when very large or very small. */
export function formatNumber(value: number): string {
  if (value === 0 || Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1e5 || abs < 1e-3) return value.toExponential(2);
  return Number(value.toPrecision(4)).toString();
}
