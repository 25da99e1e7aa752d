// A module loader hook (node --experimental-loader) that names every file module loaded on stderr, for
// the start-up test: what a command loads is what it costs to start.
export async function load(url, context, next) {
  if (url.startsWith('file:')) process.stderr.write(`aip-test-load ${url}\n`);
  return next(url, context);
}
