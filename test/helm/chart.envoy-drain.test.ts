import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CHART_DIR, helm } from '../support/helm.js';
import type { KubeObject } from '../support/kube-api-server/object-store.js';

/**
 * Stopping Envoy's pods (a rollout, a drained node): Envoy exits at once on SIGTERM, so the chart
 * asks it to drain first (preStop: `POST /drain_listeners?graceful` on its admin interface, then
 * wait `envoy.drainSeconds`), within the roles' grace period. The preStop command is run here as
 * the kubelet runs it, against a stand-in for Envoy's admin interface on its loopback port.
 */
const run = promisify(execFile);
const ADMIN_PORT = 9901;

interface EnvoyPod {
  terminationGracePeriodSeconds: number;
  containers: { args: string[]; lifecycle?: { preStop?: { exec?: { command: string[] } } } }[];
}

async function envoyPod(args: string[]): Promise<EnvoyPod> {
  const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', ...args]);
  const objects = parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null);
  const deployment = objects.find((object) => object?.kind === 'Deployment' && object.metadata.name === 'suigw-envoy')!;
  return deployment.spec.template.spec as EnvoyPod;
}

describe("the chart's Envoy drains before it stops", () => {
  let admin: http.Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
    admin = undefined;
  });

  it('drains for envoy.drainSeconds (--drain-time-s, every request discouraged at once) within the grace period the roles have', async () => {
    const pod = await envoyPod(['--set', 'envoy.drainSeconds=12', '--set', 'shutdown.gracePeriodSeconds=40']);
    expect(pod.terminationGracePeriodSeconds).toBe(40);
    const args = pod.containers[0]!.args;
    expect(args.slice(args.indexOf('--drain-time-s'), args.indexOf('--drain-time-s') + 2)).toEqual(['--drain-time-s', '12']);
    expect(args.slice(args.indexOf('--drain-strategy'), args.indexOf('--drain-strategy') + 2)).toEqual(['--drain-strategy', 'immediate']);
  });

  it("has preStop ask Envoy's admin interface for a graceful drain, then wait, then exit 0", async () => {
    const received: string[] = [];
    admin = http.createServer((request, response) => {
      received.push(`${request.method} ${request.url}`);
      response.end('OK\n');
    });
    // Any free port stands for the admin port, so the test never depends on 9901 being free here.
    await new Promise<void>((resolve, reject) => admin!.once('error', reject).listen(0, '127.0.0.1', resolve));
    const standIn = (admin.address() as AddressInfo).port;

    const command = (await envoyPod(['--set', 'envoy.drainSeconds=1'])).containers[0]!.lifecycle!.preStop!.exec!.command;
    expect(command.at(-1)).toMatch(/; sleep 1$/);
    expect(command.at(-1)).toContain(`/dev/tcp/127.0.0.1/${ADMIN_PORT}`);
    const [file, ...args] = command;
    await run(file!, args.map((arg) => arg.replaceAll(`/dev/tcp/127.0.0.1/${ADMIN_PORT}`, `/dev/tcp/127.0.0.1/${standIn}`)));
    expect(received).toEqual(['POST /drain_listeners?graceful']);
  });

  it('waits even when the admin interface does not answer (Envoy already gone): the exit status is the wait', async () => {
    const command = (await envoyPod(['--set', 'envoy.drainSeconds=1'])).containers[0]!.lifecycle!.preStop!.exec!.command;
    const [file, ...args] = command;
    await expect(run(file!, args)).resolves.toMatchObject({ stdout: '' });
  });

  it('refuses a drain that does not fit in the grace period, and takes one a second below it', async () => {
    await expect(envoyPod(['--set', 'envoy.drainSeconds=30'])).rejects.toThrow(
      "envoy.drainSeconds (30) must be below shutdown.gracePeriodSeconds (30): Envoy's pod has that grace period too, and the kubelet kills it at its end",
    );
    expect((await envoyPod(['--set', 'envoy.drainSeconds=29'])).terminationGracePeriodSeconds).toBe(30);
  });

  it('refuses no drain at all (values.schema.json)', async () => {
    await expect(envoyPod(['--set', 'envoy.drainSeconds=0'])).rejects.toThrow('- envoy.drainSeconds: Must be greater than or equal to 1');
  });
});
