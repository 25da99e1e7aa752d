// 64-bit integers from decimal text (OTLP/JSON writes times and int attributes as strings of digits)
// split into 32-bit halves for protobuf, in one pass and without making an object: a span has two or
// more of them, and sending a million spans reads every one. The digits before the last 8 (H, below
// 2^40) and the last 8 (L) are summed apart, as int64() in otlp.ts splits them. The result is left in
// `halves` (module state, read at once by the caller).

const TWO_32 = 4294967296;
const TWO_20 = 1048576;
const TWO_12 = 4096;
// The largest magnitudes, split as above: 2^64-1, 2^63-1 and 2^63.
const MAX_UNSIGNED = [184467440737, 9551615];
const MAX_POSITIVE = [92233720368, 54775807];
const MAX_NEGATIVE = [92233720368, 54775808];

/** The halves of the last value read (two's complement for negatives). */
export const halves = { low: 0, high: 0 };

/** A magnitude's halves, negated if asked. */
export function setHalves(low: number, high: number, negative: boolean): void {
  if (negative) {
    halves.low = (~low + 1) >>> 0;
    halves.high = (~high + (low === 0 ? 1 : 0)) >>> 0;
  } else {
    halves.low = low;
    halves.high = high;
  }
}

/** A safe integer's halves. */
export function setSafeInteger(n: number): void {
  const magnitude = Math.abs(n);
  setHalves(magnitude >>> 0, Math.floor(magnitude / TWO_32) >>> 0, n < 0);
}

/** Checks the range of H·10^8 + L and sets the halves: false if it does not fit. */
function fromParts(H: number, L: number, negative: boolean, signed: boolean): boolean {
  const max = !signed ? MAX_UNSIGNED : negative ? MAX_NEGATIVE : MAX_POSITIVE;
  if (H > max[0]! || (H === max[0] && L > max[1]!)) return false;
  const hl = H % TWO_20;
  const a = Math.floor(H / TWO_20) * 1e8; // times 2^20, below 2^47
  const b = hl * 1e8 + L; // below 2^48
  let low = (a % TWO_12) * TWO_20 + (b % TWO_32);
  let high = Math.floor(a / TWO_12) + Math.floor(b / TWO_32);
  if (low >= TWO_32) {
    low -= TWO_32;
    high += 1;
  }
  setHalves(low >>> 0, high >>> 0, negative);
  return true;
}

/** 1 to 20 digits (a `-` first, if signed) that fit in 64 bits, from a string. */
export function readDecimalString(s: string, signed: boolean): boolean {
  const length = s.length;
  const negative = signed && s.charCodeAt(0) === 45;
  const first = negative ? 1 : 0;
  if (length - first < 1 || length - first > 20) return false;
  const split = length - 8;
  let H = 0;
  let L = 0;
  for (let k = first; k < length; k++) {
    const d = s.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return false;
    if (k < split) H = H * 10 + d;
    else L = L * 10 + d;
  }
  return fromParts(H, L, negative, signed);
}

/** The same, from bytes `start` to `end`. */
export function readDecimalBytes(src: Uint8Array, start: number, end: number, signed: boolean): boolean {
  const negative = signed && src[start] === 45;
  const first = negative ? start + 1 : start;
  if (end - first < 1 || end - first > 20) return false;
  const split = end - 8;
  let H = 0;
  let L = 0;
  for (let k = first; k < end; k++) {
    const d = src[k]! - 48;
    if (d < 0 || d > 9) return false;
    if (k < split) H = H * 10 + d;
    else L = L * 10 + d;
  }
  return fromParts(H, L, negative, signed);
}
