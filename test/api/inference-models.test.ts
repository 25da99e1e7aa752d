// `models list` asks for the Inference API's models over aip's own client (api/inference-models.ts)
// instead of the openai SDK (issue 32): for every answer a server can give, the list or the error is
// the one the SDK path (listInferenceModels in api/openai.ts, still used by chat and the judge) gives,
// and what only the own client checks (the shape of an untrusted list) is refused in one line.

import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listInferenceModelsDirect } from '../../src/api/inference-models.js';
import { listInferenceModels, openaiClient } from '../../src/api/openai.js';
import { nodeTransport } from '../../src/api/transport.js';
import { Context } from '../../src/context.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A server answering with `handle`; the headers of each request it got. */
async function serve(handle: Handler): Promise<{ base: string; headers: IncomingMessage['headers'][] }> {
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    handle(req, res, headers.length);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, headers };
}

function context(base: string, globals: Context['globals'] = {}): Context {
  const ctx = new Context({
    env: {
      AIP_CONFIG_DIR: tempConfigDir(),
      AIP_KEYRING: 'off',
      AIP_API_KEY: 'parity-key-0123456789',
      AIP_INFERENCE_URL: base,
      AIP_PROJECT: 'team/project',
    },
    io: fakeIO().io,
    transport: nodeTransport,
    sleep: async () => undefined,
    random: () => 0.5,
    signals: new EventEmitter(),
  });
  ctx.globals = globals;
  return ctx;
}

/** What a listing came to: the models, or the error as the user sees it. */
async function outcome(list: () => Promise<unknown>) {
  try {
    return { models: await list() };
  } catch (error) {
    const e = error as Error & { hint?: string; status?: number; attempts?: number };
    return { error: e.name, message: e.message, hint: e.hint, status: e.status, attempts: e.attempts };
  }
}

async function both(handle: Handler, globals: Context['globals'] = {}) {
  // A server each: a handler that counts requests (a 503 that heals) sees each client from its first.
  const sdkServer = await serve(handle);
  const ownServer = await serve(handle);
  const sdk = await outcome(async () => {
    const ctx = context(sdkServer.base, globals);
    return listInferenceModels(ctx, await openaiClient(ctx, 'inference'));
  });
  const own = await outcome(() => listInferenceModelsDirect(context(ownServer.base, globals)));
  return { sdk, own };
}

const json = (status: number, body: string, headers: Record<string, string> = {}): Handler => {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
};

const MODELS =
  '{"object":"list","data":[{"id":"a/b","object":"model","created":1,"owned_by":"x","extra":{"k":[1]}}]}';

describe('the model list over the own client, as the SDK gave it', () => {
  const cases: Array<[string, Handler, Context['globals']?]> = [
    ['a list', json(200, MODELS)],
    ['an empty list', json(200, '{"object":"list","data":[]}')],
    ['no data at all', json(200, '{"object":"list"}')],
    ['a JSON error body', json(404, '{ "error": { "message": "no such thing", "type": "x" } }')],
    ['a FastAPI error body', json(422, '{"detail": [{"msg": "bad"}]}')],
    [
      'a text error body',
      (_req, res) => {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('go away');
      },
    ],
    ['a 503, retried to the end', json(503, '{"error":{"message":"busy"}}'), { maxRetries: 2 }],
    ['a 503 that heals', (req, res, n) => json(n === 1 ? 503 : 200, n === 1 ? '{}' : MODELS)(req, res, n)],
    ['a 429 asking for too long a pause', json(429, '{}', { 'retry-after': '3600' })],
    ['a 401, with a request id', json(401, '{"error":{"message":"bad key"}}', { 'x-request-id': 'req-1' })],
    ['malformed JSON', json(200, '{"object":"list","data":[')],
    [
      'a connection closed before the answer',
      (req) => {
        req.socket.destroy();
      },
      { maxRetries: 1 },
    ],
    [
      'a body cut short',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"object":"list"');
        setTimeout(() => res.destroy(), 20);
      },
      { maxRetries: 0 },
    ],
    ['silence past --timeout', () => undefined, { timeout: 0.3, maxRetries: 0 }],
  ];
  for (const [name, handle, globals] of cases) {
    it(name, async () => {
      const { sdk, own } = await both(handle, globals);
      expect(own).toEqual(sdk);
    });
  }

  it('a server that is not there', async () => {
    const { base } = await serve(() => undefined);
    servers.at(-1)!.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sdk = await outcome(async () => {
      const ctx = context(base, { maxRetries: 0 });
      return listInferenceModels(ctx, await openaiClient(ctx, 'inference'));
    });
    const own = await outcome(() => listInferenceModelsDirect(context(base, { maxRetries: 0 })));
    expect(own).toEqual(sdk);
    expect(own.message).toMatch(/^inference API unreachable: GET \/v1\/models failed \(ECONNREFUSED\)$/);
  });

  it('sends the key as a bearer token and the project header, as the SDK did', async () => {
    const server = await serve(json(200, MODELS));
    await listInferenceModelsDirect(context(server.base));
    expect(server.headers[0]).toMatchObject({
      authorization: 'Bearer parity-key-0123456789',
      'openai-project': 'team/project',
      accept: 'application/json',
    });
  });
});

describe('an untrusted list, checked', () => {
  const refused = async (body: string) => {
    const { base } = await serve(json(200, body));
    const r = await runCli(['models', 'list', '--json'], {
      env: { AIP_API_KEY: 'parity-key-0123456789', AIP_INFERENCE_URL: base },
    });
    return [r.code, r.stdout, r.stderr];
  };

  it('data that is not a list, a model without a string id, an answer that is not an object', async () => {
    expect(await refused('{"data":{"id":"a"}}')).toEqual([
      1,
      '',
      `error: the inference API's answer to GET /v1/models is not a model list: its "data" is not a list\n`,
    ]);
    expect(await refused('{"data":[{"id":"a"},{"id":7}]}')).toEqual([
      1,
      '',
      `error: the inference API's answer to GET /v1/models is not a model list: model 2 is not an object with a string "id"\n`,
    ]);
    expect(await refused('["a"]')).toEqual([
      1,
      '',
      `error: the inference API's answer to GET /v1/models is not a model list: not a JSON object\n`,
    ]);
  });

  it('--json prints the models as they came', async () => {
    const { base } = await serve(json(200, MODELS));
    const r = await runCli(['models', 'list', '--json'], {
      env: { AIP_API_KEY: 'parity-key-0123456789', AIP_INFERENCE_URL: base },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(MODELS).data);
  });
});
