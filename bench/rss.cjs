// Preloaded into a benchmarked process (node --require bench/rss.cjs …): on exit, writes the peak
// resident memory of the whole process (every thread) and the CPU time it used, as JSON, to the file
// named by AIP_BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.AIP_BENCH_RSS_FILE;
  if (!file) return;
  const usage = process.resourceUsage();
  writeFileSync(
    file,
    JSON.stringify({ rss: usage.maxRSS * 1024, cpu_us: usage.userCPUTime + usage.systemCPUTime }),
  );
});
