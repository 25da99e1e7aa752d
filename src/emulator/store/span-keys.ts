// The keys of the spans trace ingest kept (trace id then span id, as bytes), to know a span sent again
// (api-contract.md §4: the platform keys spans by them). An exact set held in flat typed arrays: no
// string, object or hex conversion a span (a Set of strings cost ~4 µs a span, and its garbage more),
// the bytes copied once into an arena and looked up by an open-addressing table of FNV-1a hashes.

const EMPTY = 0;
const DELETED = -1;

export class SpanKeySet {
  /** Slot → entry number + 1, EMPTY or DELETED. */
  private slots: Int32Array = new Int32Array(1024);
  /** Entry → where its bytes start in the arena; the next entry's start is where they end. */
  private starts: Int32Array = new Int32Array(1024);
  private hashes: Int32Array = new Int32Array(1024);
  private arena: Uint8Array = new Uint8Array(24 * 1024);
  private entries = 0;
  /** Slots not EMPTY (entries and tombstones): what decides when the table grows. */
  private used = 0;
  size = 0;

  /**
   * Adds the key made of a[aStart, aEnd) then b[bStart, bEnd); false when it was there already.
   * (Two ranges: a span's trace id and span id lie apart in its bytes.)
   */
  add(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): boolean {
    const hash = hashOf(a, aStart, aEnd, b, bStart, bEnd);
    const found = this.find(hash, a, aStart, aEnd, b, bStart, bEnd);
    if (found >= 0) return false;
    if ((this.used + 1) * 2 > this.slots.length) {
      this.rehash(this.slots.length * 2);
      return this.add(a, aStart, aEnd, b, bStart, bEnd);
    }
    const entry = this.append(hash, a, aStart, aEnd, b, bStart, bEnd);
    // The first free slot of the probe (find returned its complement).
    const slot = ~found;
    if (this.slots[slot] === EMPTY) this.used++;
    this.slots[slot] = entry + 1;
    this.size++;
    return true;
  }

  /** Removes the key (a write of the spans that was refused: store/spans.ts puts things back). */
  delete(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): void {
    const slot = this.find(hashOf(a, aStart, aEnd, b, bStart, bEnd), a, aStart, aEnd, b, bStart, bEnd);
    if (slot < 0) return;
    this.slots[slot] = DELETED;
    this.size--;
  }

  /** The slot holding the key, or the complement (~) of the first free slot on its probe. */
  private find(
    hash: number,
    a: Uint8Array,
    aStart: number,
    aEnd: number,
    b: Uint8Array,
    bStart: number,
    bEnd: number,
  ): number {
    const mask = this.slots.length - 1;
    let free = -1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === EMPTY) return ~(free >= 0 ? free : slot);
      if (held === DELETED) {
        if (free < 0) free = slot;
        continue;
      }
      const entry = held - 1;
      if (this.hashes[entry] === hash && this.equals(entry, a, aStart, aEnd, b, bStart, bEnd)) return slot;
    }
  }

  private equals(
    entry: number,
    a: Uint8Array,
    aStart: number,
    aEnd: number,
    b: Uint8Array,
    bStart: number,
    bEnd: number,
  ): boolean {
    const start = this.starts[entry]!;
    const end = entry + 1 < this.entries ? this.starts[entry + 1]! : this.arenaEnd;
    if (end - start !== aEnd - aStart + (bEnd - bStart)) return false;
    const arena = this.arena;
    let at = start;
    for (let i = aStart; i < aEnd; i++) if (arena[at++] !== a[i]) return false;
    for (let i = bStart; i < bEnd; i++) if (arena[at++] !== b[i]) return false;
    return true;
  }

  private arenaEnd = 0;

  private append(
    hash: number,
    a: Uint8Array,
    aStart: number,
    aEnd: number,
    b: Uint8Array,
    bStart: number,
    bEnd: number,
  ): number {
    const length = aEnd - aStart + (bEnd - bStart);
    if (this.arenaEnd + length > this.arena.length) {
      const bigger = new Uint8Array(Math.max(this.arena.length * 2, this.arenaEnd + length));
      bigger.set(this.arena.subarray(0, this.arenaEnd));
      this.arena = bigger;
    }
    if (this.entries === this.starts.length) {
      this.starts = grown(this.starts);
      this.hashes = grown(this.hashes);
    }
    const entry = this.entries++;
    this.starts[entry] = this.arenaEnd;
    this.hashes[entry] = hash;
    // Byte by byte: a key is a few dozen bytes, less than what a call to set() costs.
    const arena = this.arena;
    let at = this.arenaEnd;
    for (let i = aStart; i < aEnd; i++) arena[at++] = a[i]!;
    for (let i = bStart; i < bEnd; i++) arena[at++] = b[i]!;
    this.arenaEnd = at;
    return entry;
  }

  /** A table of `size` slots over the live entries (tombstones dropped). */
  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size);
    this.used = 0;
    const mask = size - 1;
    for (const held of old) {
      if (held <= 0) continue;
      let slot = this.hashes[held - 1]! & mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.slots[slot] = held;
      this.used++;
    }
  }

  clear(): void {
    this.slots = new Int32Array(1024);
    this.entries = 0;
    this.arenaEnd = 0;
    this.used = 0;
    this.size = 0;
  }
}

function grown(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** FNV-1a over both ranges, as one key. */
function hashOf(
  a: Uint8Array,
  aStart: number,
  aEnd: number,
  b: Uint8Array,
  bStart: number,
  bEnd: number,
): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = aStart; i < aEnd; i++) hash = Math.imul(hash ^ a[i]!, 0x01000193);
  for (let i = bStart; i < bEnd; i++) hash = Math.imul(hash ^ b[i]!, 0x01000193);
  return hash;
}
