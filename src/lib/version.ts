// Replaced at build time (scripts/build.mjs) and in tests (vitest.config.ts) with package.json's version.
declare const AIP_VERSION: string;

export const VERSION: string = AIP_VERSION;
export const USER_AGENT = `aip/${VERSION} node/${process.version}`;
