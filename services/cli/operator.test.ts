import { spawn } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOperatorProcess } from '../../test/support/operator-process.js';
import { loadKubeConfig, operatorOptions, operatorUsage, SERVICE_ACCOUNT_TOKEN, XDS_DEFAULT_PORT } from './operator.js';

const BIN = new URL('../../bin/suigw.js', import.meta.url).pathname;
const KUBECONFIG_YAML = (server: string) => `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: ${server} } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

describe('suigw operator flags (what charts/suigw/templates/operator.yaml passes)', () => {
  it('defaults without flags: ADS on 18000, Envoy listener 8080, no trusted hops', () => {
    expect(operatorOptions([])).toEqual({ xdsPort: XDS_DEFAULT_PORT, listenerPort: 8080, trustedProxyHops: 0, servicePrefix: undefined, networks: undefined });
  });

  it('reads the chart\'s flags and its networks.json', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'suigw-operator-')), 'networks.json');
    writeFileSync(file, JSON.stringify({ mainnet: { httpHosts: ['mainnet.api.example.com'], grpcHosts: ['mainnet.grpc.example.com'] } }));
    expect(operatorOptions(['--xds-port', '18001', '--networks', file, '--service-prefix', 'prod-suigw', '--listener-port', '8443', '--trusted-proxy-hops', '1'])).toEqual({
      xdsPort: 18001,
      listenerPort: 8443,
      trustedProxyHops: 1,
      servicePrefix: 'prod-suigw',
      networks: { mainnet: { httpHosts: ['mainnet.api.example.com'], grpcHosts: ['mainnet.grpc.example.com'] } },
    });
  });

  it('refuses a port that is not one, and an unknown flag', () => {
    expect(() => operatorOptions(['--xds-port', '70000'])).toThrow('--xds-port must be an integer 0-65535, not \'70000\'');
    expect(() => operatorOptions(['--bogus'])).toThrow(/Unknown option '--bogus'/);
  });

  it('--help names every flag it accepts', () => {
    const usage = operatorUsage();
    for (const flag of ['--xds-port', '--listener-port', '--trusted-proxy-hops', '--service-prefix', '--networks']) expect(usage).toContain(flag);
    expect(usage.split('\n')[0]).toBe('usage: suigw operator [options]   (in a pod: its service account; elsewhere the kubeconfig)');
  });
});

describe('suigw operator: where it finds the API server', () => {
  const home = () => mkdtempSync(join(tmpdir(), 'suigw-operator-home-'));
  const noToken = '/nonexistent/serviceaccount/token';

  it('reads KUBECONFIG (every file), else ~/.kube/config', () => {
    const dir = home();
    writeFileSync(join(dir, 'a.yaml'), KUBECONFIG_YAML('https://a.example:6443'));
    writeFileSync(join(dir, 'b.yaml'), KUBECONFIG_YAML('https://b.example:6443').replaceAll(/\b(c|u|x)\b/g, '$1b'));
    const both = loadKubeConfig(`${join(dir, 'a.yaml')}${delimiter}${join(dir, 'b.yaml')}`, dir, noToken);
    // Merged as the client's loadFromDefault merges them (so as before): the last file's current-context.
    expect('kubeConfig' in both && [both.kubeConfig.getCurrentCluster()?.server, both.kubeConfig.getClusters().map((c) => c.server)]).toEqual(['https://b.example:6443', ['https://a.example:6443', 'https://b.example:6443']]);
    mkdirSync(join(dir, '.kube'));
    writeFileSync(join(dir, '.kube', 'config'), KUBECONFIG_YAML('https://home.example:6443'));
    const fromHome = loadKubeConfig(undefined, dir, noToken);
    expect('kubeConfig' in fromHome && fromHome.kubeConfig.getCurrentCluster()?.server).toBe('https://home.example:6443');
  });

  it('says why when there is none (no KUBECONFIG, no ~/.kube/config, no service account), or when KUBECONFIG names a missing file', () => {
    const dir = home();
    expect(loadKubeConfig(undefined, dir, noToken)).toEqual({
      problem: `no Kubernetes API server to talk to: KUBECONFIG is unset, ${dir}/.kube/config does not exist, and this is not a pod with a service account (${noToken}); set KUBECONFIG, or run it in the cluster`,
    });
    expect(loadKubeConfig(join(dir, 'gone.yaml'), dir, noToken)).toEqual({ problem: `KUBECONFIG names ${join(dir, 'gone.yaml')}, which does not exist` });
  });

  it('without any: exits 2 with that one line, before opening a database (it used to retry forever, logging a TLS refusal)', async () => {
    // This machine is no pod: the real service account path is absent (the test means nothing where it is not).
    expect(existsSync(SERVICE_ACCOUNT_TOKEN)).toBe(false);
    const dir = home();
    const child = spawn(process.execPath, [BIN, 'operator', '--xds-port', '0'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, SUIGW_METRICS_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(guard);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: `suigw operator: no Kubernetes API server to talk to: KUBECONFIG is unset, ${dir}/.kube/config does not exist, and this is not a pod with a service account (${SERVICE_ACCOUNT_TOKEN}); set KUBECONFIG, or run it in the cluster\n`,
    });
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});

describe('suigw operator: where its xDS server listens', () => {
  const connects = (host: string, port: number) => new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });

  /**
   * On HOST, as every role (README: "every role listens on HOST, default 127.0.0.1"; the chart
   * sets 0.0.0.0). Before, ADS always listened on every interface: `suigw operator` run outside
   * a cluster served its configuration to the whole network, whatever HOST said.
   */
  it('listens on HOST only', async () => {
    // Two loopback addresses: bound to 127.0.0.2, 127.0.0.1 is refused; bound to all, both connect.
    const operator = await startOperatorProcess({ env: { HOST: '127.0.0.2', SUIGW_METRICS_HOST: '127.0.0.1' } });
    try {
      expect({ host: await connects('127.0.0.2', operator.xdsPort), other: await connects('127.0.0.1', operator.xdsPort) }).toEqual({ host: true, other: false });
    } finally {
      await operator.stop();
    }
  }, 200_000);
});
