// The limits of src/api/limits.ts without a network: sizes as the environment gives them, the page
// limit of --all at its default, and the ids a --follow keeps. (test/reliability/bounds.test.ts has
// each limit against a hostile server.)

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_PAGES,
  FOLLOW_RECENT_IDS,
  formatSize,
  LimitError,
  limitsFrom,
  parseSize,
} from '../../src/api/limits.js';
import { allItems } from '../../src/api/pagination.js';
import type { TrainingClient } from '../../src/api/training.js';
import type { JobEvent, Page } from '../../src/api/types.js';
import { UsageError } from '../../src/errors/errors.js';
import { followEvents, RecentIds } from '../../src/jobs/follow.js';

describe('sizes', () => {
  it('reads bytes and binary multiples, and prints them back', () => {
    expect(parseSize('67108864')).toBe(64 * 1024 * 1024);
    for (const text of ['64M', '64m', '64MiB', '64MB', ' 64 M ', '65536k'])
      expect(parseSize(text)).toBe(64 * 1024 * 1024);
    expect(parseSize('1.5K')).toBe(1536);
    for (const bad of ['', 'lots', '-1', '0', '1T', '64 M B']) expect(parseSize(bad)).toBeUndefined();
    expect(formatSize(32 * 1024 * 1024)).toBe('32 MiB');
    expect(formatSize(1536)).toBe('1.5 KiB');
    expect(formatSize(100)).toBe('100 bytes');
  });

  it('takes the AIP_MAX_* variables, and refuses bad values as usage errors', () => {
    expect(limitsFrom({})).toEqual(DEFAULT_LIMITS);
    const set = limitsFrom({ AIP_MAX_RESPONSE_BYTES: '2M', AIP_MAX_HEADER_BYTES: '1M', AIP_MAX_PAGES: '7' });
    expect(Object.values(set.body)).toEqual(Array(6).fill(2 * 1024 * 1024));
    expect([set.headerBytes, set.pages]).toEqual([1024 * 1024, 7]);
    for (const env of [
      { AIP_MAX_RESPONSE_BYTES: 'lots' },
      // Node cannot make a string of 1 GiB: an answer that long could never be read.
      { AIP_MAX_RESPONSE_BYTES: '1G' },
      { AIP_MAX_HEADER_BYTES: '1G' },
      { AIP_MAX_PAGES: '0' },
      { AIP_MAX_PAGES: '1.5' },
    ]) {
      expect(() => limitsFrom(env), JSON.stringify(env)).toThrow(UsageError);
    }
  });
});

describe('--all', () => {
  it(`stops at ${DEFAULT_MAX_PAGES.toLocaleString('en-US')} pages by default`, async () => {
    let pages = 0;
    const endless = async (): Promise<Page<{ id: string }>> => {
      // The test's own safety: a client without the limit fails here instead of looping forever.
      if (++pages > DEFAULT_MAX_PAGES + 100) throw new Error('no page limit');
      return { object: 'list', data: [{ id: `c${pages}` }], has_more: true } as Page<{ id: string }>;
    };
    let items = 0;
    const error = await (async () => {
      for await (const _ of allItems(endless)) items++;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitError);
    expect((error as Error).message).toBe(
      'the server still said there are more items after 10,000 pages (the limit of --all; last cursor "c10000")',
    );
    expect((error as LimitError).hint).toBe('raise it with AIP_MAX_PAGES=20000');
    expect([pages, items]).toEqual([DEFAULT_MAX_PAGES, DEFAULT_MAX_PAGES]);
  });
});

describe('--follow', () => {
  it('keeps the ids of the last events only', () => {
    const ids = new RecentIds(3);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect([ids.size, ids.has('a'), ids.has('b'), ids.has('d')]).toEqual([3, false, true, true]);
  });

  it(`a job of 30,000 events: each handed on once, a page sent again dropped, ${FOLLOW_RECENT_IDS.toLocaleString('en-US')} ids kept`, async () => {
    const total = 30_000;
    const event = (i: number): JobEvent =>
      ({ id: `e${i}`, type: i === total ? 'training_ended' : 'gradient_step', data: {} }) as JobEvent;
    let polls = 0;
    const training = {
      async listEvents(_id: string, query: { after?: string }): Promise<Page<JobEvent>> {
        const from = query.after === undefined ? 1 : Number(query.after.slice(1)) + 1;
        // Every tenth poll, the server sends the previous page again.
        const start = ++polls % 10 === 0 && from > 100 ? from - 100 : from;
        const end = Math.min(total, start + 99);
        const data = Array.from({ length: end - start + 1 }, (_, i) => event(start + i));
        return { object: 'list', data, has_more: end < total } as Page<JobEvent>;
      },
      async getJob() {
        return { status: 'running' };
      },
    } as unknown as TrainingClient;
    const seen = new RecentIds(FOLLOW_RECENT_IDS);
    const handed: string[] = [];
    const notes: string[] = [];
    const { end } = await followEvents(training, 'job', {
      intervalMs: 0,
      signal: new AbortController().signal,
      requestTimeoutMs: 1000,
      sleep: async () => undefined,
      onEvent: (e) => handed.push(e.id),
      onTrouble: (n) => notes.push(n),
      seen,
    });
    expect(end.kind).toBe('terminal');
    expect(handed).toHaveLength(total);
    expect(new Set(handed).size).toBe(total);
    expect(notes).toHaveLength(1);
    expect(seen.size).toBe(FOLLOW_RECENT_IDS);
  });
});
