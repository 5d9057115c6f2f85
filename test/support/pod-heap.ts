/**
 * The V8 heap of a Node 20 process in a pod with the chart's memory limit for `suigw authz` and
 * `suigw ratelimit` (charts/suigw/values.yaml: 512Mi). Node sizes its heap from the container's
 * memory limit: a 256 MB old generation and 1 MB semi-spaces (heap limit 259 MiB, new space
 * 2 MiB). The same process on a 24 GiB machine gets a 4 GB heap with 16 MB semi-spaces, so V8
 * lets the old generation grow several times larger between mark-compacts and each pause is
 * longer (docs/benchmarks.md, "The heap the chart's pods give the Envoy roles").
 * `nodeFlags` give a process outside a container exactly that heap: test/image/image.test.ts
 * compares the two, test/helm/chart.test.ts that the chart still sets this limit.
 */
export const POD_HEAP = {
  memoryLimit: '512Mi',
  nodeFlags: ['--max-old-space-size=256', '--max-semi-space-size=1'],
} as const;
