import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { restrictedViolations, type PodSpec } from '../../test/support/pod-security-restricted.js';
import { translate } from './translate.js';
import type { TranslationInput } from './types.js';
import { IMAGE_UID } from './workloads.js';

/** Every workload the golden cases render (testdata/<case>.in.yaml), with its pod template. */
function renderedPods(): { name: string; kind: string; pod: PodSpec; annotations: Record<string, string> }[] {
  const dir = join(import.meta.dirname, '..', 'testdata');
  const inputs = readdirSync(dir).filter((f) => f.endsWith('.in.yaml')).map((f) => parse(readFileSync(join(dir, f), 'utf8')) as TranslationInput);
  type Template = { metadata?: { annotations?: Record<string, string> }; spec: PodSpec };
  return inputs.flatMap((input) =>
    translate(input).workloads.map((workload) => {
      const { kind, metadata, spec } = workload as { kind: string; metadata: { name: string }; spec: { template?: Template; jobTemplate?: { spec: { template: Template } } } };
      const template = kind === 'CronJob' ? spec.jobTemplate!.spec.template : spec.template!;
      return { name: metadata.name, kind, pod: template.spec, annotations: template.metadata?.annotations ?? {} };
    }),
  );
}

describe("the operator's workloads under the restricted Pod Security Standard", () => {
  const pods = renderedPods();

  it('renders stream-worker Deployments and billing CronJobs to check', () => {
    expect(new Set(pods.map((p) => p.kind))).toEqual(new Set(['Deployment', 'CronJob']));
  });

  it('has no violation in any pod: a namespace enforcing "restricted" admits them', () => {
    expect(pods.map(({ name, pod, annotations }) => [name, restrictedViolations(pod, annotations)])).toEqual(pods.map(({ name }) => [name, []]));
  });

  it("runs them as the image's own user (Dockerfile USER)", () => {
    const dockerfile = readFileSync(join(import.meta.dirname, '..', '..', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^USER ${IMAGE_UID}:${IMAGE_UID}$`, 'm'));
    for (const { pod } of pods) expect(pod.securityContext).toMatchObject({ runAsUser: IMAGE_UID, runAsGroup: IMAGE_UID });
  });

  it("the checker refuses what the standard refuses (the checks are not vacuous)", () => {
    expect(restrictedViolations({ containers: [{ name: 'c' }] })).toEqual([
      'Privilege Escalation: containers[c].securityContext.allowPrivilegeEscalation must be false',
      'Capabilities: containers[c].securityContext.capabilities.drop must include ALL',
      'Running as Non-root: runAsNonRoot must be true (spec.securityContext or containers[c].securityContext)',
      'Seccomp: seccompProfile.type must be RuntimeDefault or Localhost (spec.securityContext or containers[c].securityContext)',
    ]);
    const hardened = { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'Localhost' } };
    expect(restrictedViolations({ containers: [{ name: 'c', securityContext: hardened }] })).toEqual([]);
    expect(
      restrictedViolations(
        {
          hostNetwork: true,
          hostPID: true,
          securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'Unconfined' }, sysctls: [{ name: 'kernel.msgmax' }] },
          volumes: [{ name: 'root', hostPath: { path: '/' } }, { name: 'nfs', nfs: { server: 'x', path: '/' } }, { name: 'tmp', emptyDir: {} }],
          containers: [{ name: 'c', ports: [{ hostPort: 80 }], securityContext: { ...hardened, privileged: true, runAsNonRoot: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] }, procMount: 'Unmasked' } }],
        },
        { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' },
      ),
    ).toEqual([
      'Host Namespaces: spec.hostNetwork',
      'Host Namespaces: spec.hostPID',
      'HostPath Volumes: spec.volumes[root].hostPath',
      'Volume Types: spec.volumes[nfs].nfs',
      'Sysctls: kernel.msgmax',
      'AppArmor: container.apparmor.security.beta.kubernetes.io/c',
      'Seccomp: spec.securityContext.seccompProfile.type is Unconfined',
      'Running as Non-root user: spec.securityContext.runAsUser is 0',
      'Privileged Containers: containers[c].securityContext.privileged',
      'Host Ports: containers[c].ports hostPort 80',
      '/proc Mount Type: containers[c].securityContext.procMount',
      'Capabilities: containers[c].securityContext.capabilities.add SYS_ADMIN',
      'Running as Non-root: runAsNonRoot must be true (spec.securityContext or containers[c].securityContext)',
    ]);
    // The profile may be set on the pod or on every container; Unconfined is refused on either.
    expect(restrictedViolations({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', securityContext: { ...hardened, runAsNonRoot: undefined, seccompProfile: undefined } }] })).toEqual([]);
    expect(restrictedViolations({ containers: [{ name: 'c', securityContext: { ...hardened, seccompProfile: { type: 'Unconfined' } } }] })).toEqual([
      'Seccomp: containers[c].securityContext.seccompProfile.type is Unconfined',
      'Seccomp: seccompProfile.type must be RuntimeDefault or Localhost (spec.securityContext or containers[c].securityContext)',
    ]);
  });
});
