/**
 * The "restricted" Pod Security Standard (https://kubernetes.io/docs/concepts/security/pod-security-standards/,
 * which includes every "baseline" rule), written from the standard's table of controls: what
 * the PodSecurity admission controller refuses in a namespace labelled
 * `pod-security.kubernetes.io/enforce: restricted`. Returns one line per violation, naming the
 * control and the field, so a failing test says what to fix.
 */

interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
  seLinuxOptions?: { type?: string; user?: string; role?: string };
  appArmorProfile?: { type?: string };
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: { name: string }[];
}

interface Container {
  name: string;
  ports?: { hostPort?: number }[];
  securityContext?: SecurityContext;
}

export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  volumes?: Record<string, unknown>[];
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
}

/** Baseline: capabilities a container may add; restricted narrows that to NET_BIND_SERVICE. */
const RESTRICTED_ADDABLE = new Set(['NET_BIND_SERVICE']);
/** Restricted: the only volume sources allowed. */
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
/** Baseline: the "safe" sysctls. */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const SECCOMP_ALLOWED = new Set(['RuntimeDefault', 'Localhost']);

export function restrictedViolations(pod: PodSpec, annotations: Record<string, string> = {}): string[] {
  const violations: string[] = [];
  const podContext = pod.securityContext ?? {};
  const containers = [...pod.containers, ...(pod.initContainers ?? []), ...(pod.ephemeralContainers ?? [])];

  // Baseline.
  if (podContext.windowsOptions?.hostProcess) violations.push('HostProcess: spec.securityContext.windowsOptions.hostProcess');
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (pod[field]) violations.push(`Host Namespaces: spec.${field}`);
  for (const volume of pod.volumes ?? []) {
    const source = Object.keys(volume).find((key) => key !== 'name')!;
    if (source === 'hostPath') violations.push(`HostPath Volumes: spec.volumes[${String(volume['name'])}].hostPath`);
    // Restricted.
    else if (!RESTRICTED_VOLUMES.has(source)) violations.push(`Volume Types: spec.volumes[${String(volume['name'])}].${source}`);
  }
  for (const sysctl of podContext.sysctls ?? []) if (!SAFE_SYSCTLS.has(sysctl.name)) violations.push(`Sysctls: ${sysctl.name}`);
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith('container.apparmor.security.beta.kubernetes.io/') && value !== 'runtime/default' && !value.startsWith('localhost/')) violations.push(`AppArmor: ${key}`);
  }
  const contexts: [string, SecurityContext][] = [['spec.securityContext', podContext], ...containers.map((c): [string, SecurityContext] => [`containers[${c.name}].securityContext`, c.securityContext ?? {}])];
  for (const [where, context] of contexts) {
    const seLinux = context.seLinuxOptions;
    if (seLinux && (!SELINUX_TYPES.has(seLinux.type ?? '') || (seLinux.user ?? '') !== '' || (seLinux.role ?? '') !== '')) violations.push(`SELinux: ${where}.seLinuxOptions`);
    if (context.seccompProfile?.type === 'Unconfined') violations.push(`Seccomp: ${where}.seccompProfile.type is Unconfined`);
    if (context.appArmorProfile?.type !== undefined && !['RuntimeDefault', 'Localhost'].includes(context.appArmorProfile.type)) violations.push(`AppArmor: ${where}.appArmorProfile`);
    // Restricted: runAsUser 0 is refused wherever it is set.
    if (context.runAsUser === 0) violations.push(`Running as Non-root user: ${where}.runAsUser is 0`);
  }
  for (const container of containers) {
    const context = container.securityContext ?? {};
    const where = `containers[${container.name}].securityContext`;
    if (context.windowsOptions?.hostProcess) violations.push(`HostProcess: ${where}.windowsOptions.hostProcess`);
    if (context.privileged) violations.push(`Privileged Containers: ${where}.privileged`);
    for (const port of container.ports ?? []) if (port.hostPort) violations.push(`Host Ports: containers[${container.name}].ports hostPort ${port.hostPort}`);
    if (context.procMount !== undefined && context.procMount !== 'Default') violations.push(`/proc Mount Type: ${where}.procMount`);
    // Restricted.
    if (context.allowPrivilegeEscalation !== false) violations.push(`Privilege Escalation: ${where}.allowPrivilegeEscalation must be false`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) violations.push(`Capabilities: ${where}.capabilities.drop must include ALL`);
    for (const added of context.capabilities?.add ?? []) if (!RESTRICTED_ADDABLE.has(added)) violations.push(`Capabilities: ${where}.capabilities.add ${added}`);
    const nonRoot = context.runAsNonRoot ?? podContext.runAsNonRoot;
    if (nonRoot !== true) violations.push(`Running as Non-root: runAsNonRoot must be true (spec.securityContext or ${where})`);
    const seccomp = context.seccompProfile?.type ?? podContext.seccompProfile?.type;
    if (seccomp === undefined || !SECCOMP_ALLOWED.has(seccomp)) violations.push(`Seccomp: seccompProfile.type must be RuntimeDefault or Localhost (spec.securityContext or ${where})`);
  }
  return violations;
}
