// Telling keys apart without showing them. A key of 16 characters or more shows its last 4, as gh
// and the cloud CLIs do (`****cdef`); a shorter one would give too much of itself away that way, and
// shows the first 8 hex digits of its SHA-256 instead, which say nothing of the key but differ
// between keys. Its own module: node:crypto loads only in the auth commands.

import { createHash } from 'node:crypto';
import { maskSecret } from '../output/secrets.js';

export function keyFingerprint(key: string): string {
  if (key.length >= 16) return maskSecret(key);
  return `**** sha256:${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}
