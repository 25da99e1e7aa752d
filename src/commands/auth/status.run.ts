// `aip auth status`: which key is in use (masked), where it comes from and where it is stored (the
// keychain, the config file, the environment, built in), the profile, project and URLs, and whether the Training and Inference APIs accept the key. Exit 4 without a usable key.

import { keyFingerprint } from '../../auth/fingerprint.js';
import { keyLocation } from '../../auth/key-location.js';
import { type KeyProbe, probeInferenceKey, probeTrainingKey } from '../../auth/verify.js';
import type { Context } from '../../context.js';
import { AUTH_HINT, AuthError } from '../../errors/errors.js';
import { maskSecret } from '../../output/secrets.js';
import { printFields } from '../../output/table.js';

interface InterfaceRow {
  interface: 'training' | 'inference' | 'trace';
  url: string;
  key: KeyProbe['key'] | 'no key' | 'not checked';
  detail: string | null;
}

export async function runStatus(ctx: Context): Promise<void> {
  const { io, settings } = ctx;
  const apiKey = settings.apiKey();
  const project = settings.resolve('project');

  let checks: KeyProbe[] = [];
  if (apiKey) {
    const key = apiKey.key;
    checks = await io.withSpinner('Checking the key…', () =>
      Promise.all([probeTrainingKey(ctx, key), probeInferenceKey(ctx, key)]),
    );
  }
  const rows: InterfaceRow[] = (['training', 'inference'] as const).map((name) => {
    const check = checks.find((c) => c.interface === name);
    if (check) return { interface: name, url: check.url, key: check.key, detail: check.detail };
    return { interface: name, url: ctx.serviceUrl(name), key: 'no key', detail: null };
  });
  rows.push({ interface: 'trace', url: ctx.serviceUrl('trace'), key: 'not checked', detail: null });

  if (ctx.json) {
    io.json({
      profile: settings.profile,
      profile_source: settings.profileSource,
      config_file: settings.configFile,
      api_key: apiKey
        ? {
            masked: maskSecret(apiKey.key),
            fingerprint: keyFingerprint(apiKey.key),
            source: apiKey.source,
            storage: apiKey.storage,
          }
        : null,
      project: { value: project.value ?? null, source: project.source },
      interfaces: rows,
    });
  } else if (!io.quiet) {
    const s = io.style;
    const verdict = (row: InterfaceRow) => {
      const text =
        row.key === 'accepted' ? 'key accepted' : row.key === 'rejected' ? 'key rejected' : row.key;
      const colored =
        row.key === 'accepted'
          ? s.green(text)
          : row.key === 'rejected' || row.key === 'error'
            ? s.red(text)
            : s.dim(text);
      return `${row.url}  ${colored}${row.detail ? ` (${row.detail})` : ''}`;
    };
    printFields(io, [
      ['profile', `${settings.profile} (${settings.profileSource})`],
      ['config file', settings.configFile],
      ['api key', apiKey ? `${keyFingerprint(apiKey.key)} (${apiKey.source})` : s.red('none')],
      ...(apiKey ? [['key storage', keyLocation(settings, apiKey.storage)] as [string, string]] : []),
      ['project', project.value ? `${project.value} (${project.source})` : s.dim('not set')],
      ...rows.map((row): [string, string] => [row.interface, verdict(row)]),
    ]);
  }

  if (!apiKey)
    throw new AuthError(`not logged in: no API key for profile "${settings.profile}"`, { hint: AUTH_HINT });
  const rejected = checks.filter((c) => c.key === 'rejected');
  if (rejected.length > 0) {
    throw new AuthError(
      `the key is rejected by the ${rejected.map((c) => `${c.interface} API`).join(' and ')}`,
      {
        hint: AUTH_HINT,
      },
    );
  }
  const failed = checks.find((c) => c.error);
  if (failed?.error) throw failed.error;
}
