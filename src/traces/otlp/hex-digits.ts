// Hex digit values by byte (or character code below 256), -1 for what is not one: for reading span
// and trace ids without a string per id, in span-writer.ts (from strings) and span-transcoder.ts
// (from bytes).

export const HEX_DIGITS = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX_DIGITS[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX_DIGITS[65 + i] = 10 + i;
  HEX_DIGITS[97 + i] = 10 + i;
}
