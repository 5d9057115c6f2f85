import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { GrpcTypes } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../support/grpc-proxy-e2e.js';

// Debian's Chromium; `scripts/ensure-chromium.sh` (make test) installs it when missing.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function startSite(host: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://${host}:${port}` };
}

interface PageCall {
  ok: boolean;
  status?: number;
  grpcStatus?: string | null;
  grpcMessage?: string | null;
  credit?: string | null;
  /** The response body, base64 (gRPC-Web frames). */
  body?: string;
  error?: string;
}

/**
 * A unary gRPC-Web call from inside the page, as a web app's transport makes it: a fetch POST of
 * one length-prefixed frame (GetServiceInfoRequest is empty), `x-api-key` as metadata.
 */
function callFromPage(page: Page, url: string, key: string): Promise<PageCall> {
  return page.evaluate(async ({ url, key }) => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1', 'x-api-key': key },
        body: new Uint8Array([0, 0, 0, 0, 0]),
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      let binary = '';
      for (const byte of bytes) binary += String.fromCharCode(byte);
      return {
        ok: true, status: response.status, body: btoa(binary),
        grpcStatus: response.headers.get('grpc-status'), grpcMessage: response.headers.get('grpc-message'),
        credit: response.headers.get('x-svc-credit-remaining'),
      };
    } catch (error) {
      return { ok: false, error: String(error) };
    }
  }, { url, key });
}

/** gRPC-Web frames: data frames (flag 0) and the trailer frame (flag 0x80, HTTP/1 header lines). */
function readFrames(base64: string): { messages: Buffer[]; trailers: Record<string, string> } {
  const body = Buffer.from(base64, 'base64');
  const messages: Buffer[] = [];
  const trailers: Record<string, string> = {};
  for (let at = 0; at + 5 <= body.length;) {
    const length = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if (body[at]! & 0x80) {
      for (const line of payload.toString('utf8').split('\r\n').filter(Boolean)) {
        const colon = line.indexOf(':');
        trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
    } else {
      messages.push(payload);
    }
    at += 5 + length;
  }
  return { messages, trailers };
}

describe('a browser page calls a Sui v2 method through the gRPC-Web proxy with an origin-restricted key (headless Chromium)', () => {
  let e2e: GrpcProxyE2E;
  let browser: Browser;
  let siteA: { server: Server; origin: string };
  let siteB: { server: Server; origin: string };
  let webKey: string;

  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
    siteA = await startSite('127.0.0.1');
    siteB = await startSite('localhost');
    webKey = await e2e.key({ allowedOrigins: [siteA.origin] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([siteA, siteB].map((site) => site && new Promise((resolve) => site.server.close(resolve))));
    await e2e?.stop();
  });

  it('from the allowed origin: GetServiceInfo answers with the chain id and readable credit metadata; from another origin: PERMISSION_DENIED ORIGIN_NOT_ALLOWED', async () => {
    const url = `http://${e2e.host}/sui.rpc.v2.LedgerService/GetServiceInfo`;
    const pageA = await browser.newPage();
    await pageA.goto(`${siteA.origin}/`);
    const fromA = await callFromPage(pageA, url, webKey);
    expect(fromA).toMatchObject({ ok: true, status: 200 });
    const { messages, trailers } = readFrames(fromA.body!);
    expect(messages).toHaveLength(1);
    expect(GrpcTypes.GetServiceInfoResponse.fromBinary(messages[0]!).chainId).toBe(e2e.simnet!.chainId);
    expect(trailers['grpc-status']).toBe('0');
    expect(Number(trailers['x-svc-credit-remaining'])).toBeGreaterThan(0);

    const pageB = await browser.newPage();
    await pageB.goto(`${siteB.origin}/`);
    const fromB = await callFromPage(pageB, url, webKey);
    // A trailers-only answer: the status is in the (exposed) response headers.
    expect(fromB).toMatchObject({ ok: true, status: 200, grpcStatus: '7' });
    expect(decodeURIComponent(fromB.grpcMessage!)).toMatch(/^ORIGIN_NOT_ALLOWED: /);
  });
});
