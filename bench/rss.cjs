// Preloaded into a benchmarked process (node --require bench/rss.cjs …): on exit, writes the peak
// resident memory of the whole process (every thread) to the file named by AIP_BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.AIP_BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
});
