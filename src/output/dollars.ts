// Money as aip shows it, in every table, summary and message that has a cost: runs at these prices
// cost fractions of a cent (one 14B answer: $0.00003), so a fixed four decimals would print $0.0000
// for what was not free.

/**
 * "$0", "$12.35" from a dollar up, "$0.5000" down to a cent, and below a cent two significant digits
 * ("$0.0012", "$0.000027"): never rounded to nothing.
 */
export function dollars(amount: number): string {
  if (amount === 0) return '$0';
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount >= 0.01) return `$${amount.toFixed(4)}`;
  // The decimals that keep two significant digits: 0.0012 → 4, 2.7e-5 → 6, 5e-8 → 9.
  const decimals = Math.min(20, 1 - Math.floor(Math.log10(amount)));
  return `$${amount.toFixed(decimals)}`;
}
