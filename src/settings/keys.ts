// The non-secret settings: their names, where each can come from, their built-in defaults, and how a
// value is checked. Everything that reads or writes a setting goes through this table.

import type { GlobalOptions } from './global-options.js';

export const SETTING_KEYS = [
  'project',
  'base-url',
  'inference-url',
  'trace-url',
  'default-model',
  'output',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export const OUTPUT_FORMATS = ['table', 'json'] as const;

export interface SettingSpec {
  description: string;
  env?: string;
  /** The global option that overrides it, as commander names it and as the user types it. */
  flag?: { option: keyof GlobalOptions; name: string };
  /** The built-in default: the hosted platform. */
  fallback?: string;
  /** Returns the value to store; throws an Error whose message says what is wrong. */
  normalize(value: string): string;
  /** A warning worth showing for a valid but suspicious value. */
  warning?(value: string): string | undefined;
}

export function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

export function normalizeProject(value: string): string {
  const trimmed = value.trim();
  if (!/^[^/\s]+\/[^/\s]+$/.test(trimmed) || trimmed.split('/').some((p) => p === '.' || p === '..')) {
    throw new Error(`expected team/project, got "${value}"`);
  }
  return trimmed;
}

export function normalizeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`not a URL: "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`expected an http:// or https:// URL, got "${url.protocol}"`);
  }
  if (url.username || url.password) throw new Error('a URL must not carry credentials');
  if (url.search || url.hash) throw new Error('a base URL must not have a query or fragment');
  return url.href.replace(/\/+$/, '');
}

function expectV1(value: string): string | undefined {
  return value.endsWith('/v1')
    ? undefined
    : `"${value}" does not end in /v1; the API paths are joined after it`;
}

function nonEmptyWord(value: string): string {
  const trimmed = value.trim();
  if (!trimmed || /\s/.test(trimmed)) throw new Error(`expected a single word, got "${value}"`);
  return trimmed;
}

export const SETTINGS: Record<SettingKey, SettingSpec> = {
  project: {
    description: 'team/project that owns models, usage and traces',
    env: 'AIP_PROJECT',
    flag: { option: 'project', name: '--project' },
    normalize: normalizeProject,
  },
  'base-url': {
    description: 'Training API base URL (ends in /v1)',
    env: 'AIP_BASE_URL',
    flag: { option: 'baseUrl', name: '--base-url' },
    fallback: 'https://api.training.wandb.ai/v1',
    normalize: normalizeUrl,
    warning: expectV1,
  },
  'inference-url': {
    description: 'Inference API base URL (ends in /v1)',
    env: 'AIP_INFERENCE_URL',
    flag: { option: 'inferenceUrl', name: '--inference-url' },
    fallback: 'https://api.inference.wandb.ai/v1',
    normalize: normalizeUrl,
    warning: expectV1,
  },
  'trace-url': {
    description: 'trace-ingest base URL (spans go to {trace-url}/agents/otel/v1/traces)',
    env: 'AIP_TRACE_URL',
    flag: { option: 'traceUrl', name: '--trace-url' },
    fallback: 'https://trace.wandb.ai',
    normalize: normalizeUrl,
  },
  'default-model': {
    description: 'model used by `aip chat` when -m is not given',
    env: 'AIP_DEFAULT_MODEL',
    normalize: nonEmptyWord,
  },
  output: {
    description: 'default output format: table or json',
    env: 'AIP_OUTPUT',
    fallback: 'table',
    normalize(value) {
      const v = value.trim().toLowerCase();
      if (!(OUTPUT_FORMATS as readonly string[]).includes(v)) {
        throw new Error(`expected one of ${OUTPUT_FORMATS.join(', ')}, got "${value}"`);
      }
      return v;
    },
  },
};
