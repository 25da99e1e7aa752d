// Chat streaming latency (product.md section 7): how long after a chunk of the reply reaches the
// client's socket does its text appear on the client's stdout? A pass-through proxy between client
// and emulator notes when it hands each SSE event to the client; the bench notes when that event's
// text shows up on the client's stdout. Both clocks are this process's, so the difference is the
// client's own delay (plus a pipe hop that both clients share). `aip chat --stream` is measured
// against a bare fetch client (raw-stream.mjs) on the same emulator stream.

import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';

/** A proxy to `origin` that records, per response, the time each SSE event's text was written on. */
function startProxy(origin) {
  const responses = [];
  const server = createServer((req, res) => {
    const events = [];
    responses.push(events);
    // Host names the emulator (its own port), not this proxy: the emulator answers nothing else.
    const { host: _proxy, ...headers } = req.headers;
    const upstream = httpRequest(`${origin}${req.url}`, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      let buffer = '';
      let chars = 0;
      up.on('data', (bytes) => {
        res.write(bytes);
        const at = performance.now();
        buffer += bytes;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const data = buffer.slice(0, end).replace(/^data: /, '');
          buffer = buffer.slice(end + 2);
          const text = data === '[DONE]' ? undefined : JSON.parse(data).choices?.[0]?.delta?.content;
          if (text) {
            chars += text.length;
            events.push({ chars, at });
          }
          end = buffer.indexOf('\n\n');
        }
      });
      up.on('end', () => res.end());
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, responses, close: () => server.close() });
    });
  });
}

/** Runs a client; resolves with when (cumulative characters) its stdout grew. */
function runClient(argv, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const seen = [];
    let chars = 0;
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      chars += text.length;
      seen.push({ chars, at: performance.now() });
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) =>
      code === 0 ? resolve(seen) : reject(new Error(`${argv.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** For each event, the delay until stdout held its text. */
function delays(events, seen) {
  return events.map(({ chars, at }) => {
    const shown = seen.find((s) => s.chars >= chars);
    if (!shown) throw new Error('a streamed chunk never reached stdout');
    return shown.at - at;
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median per-chunk delay of `aip chat --stream` and of the bare fetch client, in ms. */
export async function measureStreaming({ node, bin, rawClient, origin, key, env, runs }) {
  const proxy = await startProxy(origin);
  const model = 'openai/gpt-oss-20b';
  const samples = { aip: [], raw: [] };
  try {
    for (let i = 0; i < runs; i++) {
      const prompt = `benchmark prompt number ${i}`;
      const clients = {
        aip: [node, bin, 'chat', '--stream', '-m', model, prompt],
        raw: [node, rawClient, `${proxy.url}/inference/v1/chat/completions`, key, model, prompt],
      };
      for (const [name, argv] of Object.entries(clients)) {
        const before = proxy.responses.length;
        const seen = await runClient(argv, {
          ...env,
          AIP_INFERENCE_URL: `${proxy.url}/inference/v1`,
          AIP_API_KEY: key,
        });
        const events = proxy.responses.slice(before).flat();
        if (events.length === 0) throw new Error(`${name}: no streamed chunks went through the proxy`);
        samples[name].push(...delays(events, seen));
      }
    }
  } finally {
    proxy.close();
  }
  return { aip: median(samples.aip), raw: median(samples.raw), chunks: samples.aip.length };
}
