import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

/** Kubernetes' (and prometheus-operator's) OpenAPI schemas, compiled by kubernetes-models, by apiVersion/kind. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'batch/v1/CronJob': CronJob,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': CustomResourceDefinition,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
};

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The schema violations of one object ('' when valid); an unknown kind is a violation too. */
export function schemaErrors(object: KubeObject): string {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) return `no schema for ${object.apiVersion}/${object.kind}`;
  try {
    new Model(object as never).validate();
    return '';
  } catch (error) {
    return `${object.kind}/${object.metadata.name}: ${(error as Error).message}`;
  }
}
