// Removing one file, gone already or not: rmSync(file, { force: true }) without its Node 24 defect.
// From Node 23 rmSync is written in C++ and its errors lose their code: on a read-only file system
// Node 24 throws code '' and ", Unknown error: Read-only file system '…'" where Node 20 threw EROFS,
// so aip's write errors in words (write-error.ts) could not say what happened. unlinkSync keeps the
// code on every Node.

import { unlinkSync } from 'node:fs';

/** Removes `file`; a file that is not there is no error. */
export function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
