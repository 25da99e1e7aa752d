// THIRD_PARTY_NOTICES.md for dist/: the bundle keeps no licence comments (legalComments: 'none' saves
// start-up bytes), so the name, version, licence and licence text of every package whose code the
// bundle contains are written beside it, as the MIT, ISC, BSD and Apache licences ask of copies.
// The packages are read from esbuild's metafile (what was bundled), not from package.json (what
// might be).

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** node_modules/a/node_modules/@b/c/lib/x.js → node_modules/a/node_modules/@b/c */
function packageDir(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

function licenceText(dir) {
  const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying|notice)(\.|$|-)/i.test(name));
  return file ? readFileSync(join(dir, file), 'utf8').trim() : undefined;
}

/** The bundled packages, by name@version, each with its licence. */
export function bundledPackages(root, metafiles) {
  const dirs = new Set();
  for (const metafile of metafiles)
    for (const input of Object.keys(metafile.inputs)) {
      const dir = packageDir(input);
      if (dir) dirs.add(dir);
    }
  const packages = new Map();
  for (const dir of dirs) {
    const abs = join(root, dir);
    if (!existsSync(join(abs, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8'));
    const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'see its text');
    const key = `${pkg.name}@${pkg.version}`;
    if (!packages.has(key))
      packages.set(key, { name: pkg.name, version: pkg.version, license, text: licenceText(abs) });
  }
  // By code unit, not localeCompare: the order must not depend on the machine's locale, as the
  // action's committed notices are compared byte for byte with a fresh build's.
  return [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function writeThirdPartyNotices(root, metafiles, file, bundle = "aip's dist/") {
  const packages = bundledPackages(root, metafiles);
  const missing = packages.filter((p) => !p.text);
  const parts = [
    '# Third-party notices',
    '',
    `${bundle} bundles code from the ${packages.length} packages below. Each one's licence and notice follow.`,
    '',
    ...packages.map((p) => `- ${p.name} ${p.version} (${p.license})`),
    '',
    ...packages.flatMap((p) => [
      `## ${p.name} ${p.version}`,
      '',
      `Licence: ${p.license}`,
      '',
      p.text
        ? ['```text', p.text, '```'].join('\n')
        : `(the package ships no licence file; its package.json says ${p.license})`,
      '',
    ]),
  ];
  writeFileSync(file, `${parts.join('\n')}\n`);
  return { packages: packages.length, withoutText: missing.map((p) => `${p.name}@${p.version}`) };
}
