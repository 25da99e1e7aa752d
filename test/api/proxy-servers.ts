// What the proxy tests put between aip and the emulator, all on loopback:
//   - a forward proxy (node:http) that takes absolute-form requests (http:// targets) and CONNECT
//     (https:// targets), keeps a record of what passed through it, and can ask for credentials or
//     refuse everything;
//   - a TLS front: an https server, with a certificate made here by openssl for the names *.test, that
//     hands each request on to the emulator. A CONNECT to a *.test name is tunnelled to it.
// The emulator answers only requests whose Host is its own (docs/emulator.md), so whatever hands a
// request on to it (the front; the proxy, for an http:// target) names it in Host.
// A name ending in .test is this machine (127.0.0.1) for the proxy; for aip itself, in a spawned aip,
// by test-hosts.cjs.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';

export interface ProxyRecord {
  /** 'absolute' for a request sent whole to the proxy (an http:// target), 'connect' for a tunnel. */
  kind: 'absolute' | 'connect';
  /** The request target: the whole URL, or host:port for a CONNECT. */
  target: string;
  headers: IncomingHttpHeaders;
  /** Everything the client sent: the request's body, or every byte that went into the tunnel. */
  sent: Buffer;
}

export interface TestProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  records: ProxyRecord[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** `user:password` the proxy asks for (407 without them). */
  credentials?: string;
  /** Answer every request and CONNECT with this status instead. */
  refuse?: number;
  /** Answer no CONNECT at all: keep the connection open, silent. */
  silent?: boolean;
}

/** `host:port` of a *.test name as this machine, else undefined (the proxy serves only those). */
function localAddress(host: string, port: number): { host: string; port: number } | undefined {
  return /\.test$/i.test(host) ? { host: '127.0.0.1', port } : undefined;
}

/** Closes a server and every connection it still has (tunnels and kept-alive ones included). */
function closer(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** Hands a request on to `port` on 127.0.0.1, with that address as its Host, and its answer back. */
function handOn(req: IncomingMessage, res: ServerResponse, port: number, path: string, body: Buffer): void {
  const { 'proxy-authorization': _credentials, 'proxy-connection': _connection, ...rest } = req.headers;
  const headers = { ...rest, host: `127.0.0.1:${port}` };
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  upstream.end(body);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startTestProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const records: ProxyRecord[] = [];
  const expected = options.credentials && `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  /** Why the proxy will not pass this request on (status and reason), if it will not. */
  const refusal = (headers: IncomingHttpHeaders): [number, string] | undefined => {
    if (options.refuse) return [options.refuse, options.refuse === 502 ? 'Bad Gateway' : 'Refused'];
    if (expected && headers['proxy-authorization'] !== expected)
      return [407, 'Proxy Authentication Required'];
    return undefined;
  };
  const server = createServer(async (req, res) => {
    const sent = await readAll(req);
    records.push({ kind: 'absolute', target: req.url ?? '', headers: req.headers, sent });
    const refused = refusal(req.headers);
    const target = new URL(req.url ?? '/', 'http://invalid');
    const address = localAddress(target.hostname, Number(target.port || 80));
    if (refused || !address) {
      const [status, reason] = refused ?? [502, 'Bad Gateway'];
      res.writeHead(status, reason, {
        'proxy-authenticate': 'Basic realm="test"',
        'content-type': 'text/plain',
      });
      return res.end(`the test proxy says ${status}\n`);
    }
    handOn(req, res, address.port, `${target.pathname}${target.search}`, sent);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const record: ProxyRecord = { kind: 'connect', target: req.url ?? '', headers: req.headers, sent: head };
    records.push(record);
    if (options.silent) return;
    const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
    const refused = refusal(req.headers);
    const address = localAddress(host, Number(port));
    if (refused || !address) {
      const [status, reason] = refused ?? [502, 'Bad Gateway'];
      return client.end(
        `HTTP/1.1 ${status} ${reason}\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n`,
      );
    }
    const upstream = connect(address.port, address.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    client.on('data', (chunk: Buffer) => {
      record.sent = Buffer.concat([record.sent, chunk]);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  const close = closer(server);
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, port, records, close };
}

export interface TestCertificate {
  /** The certificate (PEM file): NODE_EXTRA_CA_CERTS for aip to trust it. */
  certFile: string;
  key: Buffer;
  cert: Buffer;
}

/** A self-signed certificate for training.test, inference.test and trace.test, made by openssl. */
export function makeCertificate(): TestCertificate {
  const dir = tempDir('aip-test-proxy-cert-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=aip proxy test',
      '-addext',
      'subjectAltName=DNS:training.test,DNS:inference.test,DNS:trace.test',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl could not make a certificate: ${r.stderr}`);
  return { certFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}

/** An https server that hands every request on to the emulator at `emulatorPort`. */
export async function startTlsFront(
  certificate: TestCertificate,
  emulatorPort: number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createTlsServer({ key: certificate.key, cert: certificate.cert }, async (req, res) => {
    handOn(req, res, emulatorPort, req.url ?? '/', await readAll(req));
  });
  const close = closer(server);
  return { port: await listen(server), close };
}
