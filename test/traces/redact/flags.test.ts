// The redaction flags as traces serve takes them: collected as strings by commander (nothing of
// traces/ loads at start-up), then checked and compiled before the gateway starts anything. A bad value
// is one line that names the flag, the value and what is wrong, exit 2, and nothing listens.

import { describe, expect, it } from 'vitest';
import { REDACT_PRESETS } from '../../../src/commands/traces/serve.js';
import { UsageError } from '../../../src/errors/errors.js';
import { redactorFromOptions } from '../../../src/traces/redact/flags.js';
import { PRESET_NAMES } from '../../../src/traces/redact/presets.js';
import { runCli } from '../../helpers/cli.js';
import { entries, request, str, where } from './requests.js';

function refusal(options: Parameters<typeof redactorFromOptions>[0]): string {
  try {
    redactorFromOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`);
}

describe('redactorFromOptions', () => {
  it('makes one Redactor of every flag, repeated, in order', () => {
    const redactor = redactorFromOptions({
      redact: ['http.url=token=[^&]+', 'user.name=(?i)ada'],
      drop: ['user.email'],
      redactPreset: ['prompts', 'prompts'],
    });
    const req = request({
      span: [
        str('http.url', 'https://x/?token=abc&b=1'),
        str('user.name', 'ADA L.'),
        str('user.email', 'ada@example.com'),
        str('gen_ai.input.messages', '[]'),
      ],
    });
    expect(redactor.apply(req)).toEqual({ redacted: 3, dropped: 1 });
    expect(entries(where(req).span.attributes)).toEqual([
      ['http.url', 'https://x/?[REDACTED]&b=1'],
      ['user.name', '[REDACTED] L.'],
      ['gen_ai.input.messages', '[REDACTED]'],
    ]);
  });

  it('makes an empty Redactor when no flag is given', () => {
    expect(redactorFromOptions({}).isEmpty).toBe(true);
  });

  it('refuses each bad value with one line that names the flag, the value and why', () => {
    expect(refusal({ redact: ['user.email'] })).toMatch(/^--redact "user\.email": .*expected ATTR=REGEX/);
    expect(refusal({ redact: ['=x'] })).toContain('the attribute name is empty');
    expect(refusal({ redact: ['a=(unclosed'] })).toContain('a: not a valid regular expression');
    expect(refusal({ redact: ['a=(?x)b'] })).toContain('the flag x is not supported');
    expect(refusal({ drop: [''] })).toMatch(/^--drop "": .*the attribute name is empty/);
    expect(refusal({ drop: ['wandb.project'] })).toContain('wandb.project routes spans to their project');
    expect(refusal({ redact: ['wandb.entity=.+'] })).toContain('wandb.entity routes spans');
    expect(refusal({ redactPreset: ['everything'] })).toContain(
      'the presets are prompts, completions, content, tool-io',
    );
  });

  it('has the presets the command lists in its help', () => {
    expect([...REDACT_PRESETS]).toEqual([...PRESET_NAMES]);
  });
});

describe('aip traces serve with a bad redaction flag', () => {
  it.each([
    [['--redact', 'user.email'], /--redact "user\.email"/],
    [['--drop', 'wandb.entity'], /--drop "wandb\.entity"/],
    [['--redact-preset', 'everything'], /--redact-preset "everything"/],
    [['--redact', 'a=(?<x'], /--redact "a=\(\?<x"/],
  ])('%j: exit 2, one line, nothing started', async (flags, message) => {
    const r = await runCli(['traces', 'serve', '--port', '0', ...flags], { env: { AIP_API_KEY: 'k' } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('Listening');
  });
});
