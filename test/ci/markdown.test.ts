// Outside text in a step summary is shown as written, never taken as Markdown or HTML.

import { describe, expect, it } from 'vitest';
import { markdownCodeBlock, markdownTable, markdownText } from '../../src/ci/markdown.js';

describe('markdown for step summaries', () => {
  it('escapes what would be markup, and keeps the text on one line', () => {
    expect(markdownText('<img src=x onerror=alert(1)> & [a](b) *b* _i_ `c` a|b ~~s~~ \\')).toBe(
      '&lt;img src=x onerror=alert(1)&gt; &amp; \\[a\\](b) \\*b\\* \\_i\\_ \\`c\\` a\\|b \\~\\~s\\~\\~ \\\\',
    );
    expect(markdownText('a\r\nb\nc')).toBe('a b c');
    expect(markdownText('# title')).toBe('\\# title');
    expect(markdownText('1. item')).toBe('1\\. item');
    expect(markdownText('- item')).toBe('\\- item');
  });

  it('fences code with more backticks than it holds', () => {
    expect(markdownCodeBlock('aip jobs wait j-1', 'sh')).toBe('```sh\naip jobs wait j-1\n```\n');
    expect(markdownCodeBlock('echo ````')).toBe('`````\necho ````\n`````\n');
  });

  it('lays out a table', () => {
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |\n');
  });
});
