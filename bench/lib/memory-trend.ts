import { readFileSync } from 'node:fs';

/** A process's resident set (VmRSS in /proc/PID/status), in bytes. */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`/proc/${pid}/status has no VmRSS`);
  return Number(match[1]) * 1024;
}

export interface Sample {
  /** Seconds since the start. */
  t: number;
  value: number;
}

/** The least-squares slope of value over t, per minute (NaN under two samples). */
export function slopePerMinute(samples: readonly Sample[]): number {
  if (samples.length < 2) return Number.NaN;
  const n = samples.length;
  const meanT = samples.reduce((sum, s) => sum + s.t, 0) / n;
  const meanV = samples.reduce((sum, s) => sum + s.value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const s of samples) {
    covariance += (s.t - meanT) * (s.value - meanV);
    variance += (s.t - meanT) ** 2;
  }
  return variance === 0 ? Number.NaN : (covariance / variance) * 60;
}

/**
 * "Flat after warm-up": the slope over the first half of the run (warm-up: caches, JIT, pools
 * filling) against the slope over the second half, which should be near zero; growth that goes on
 * is a second-half slope close to the first.
 */
export function trend(samples: readonly Sample[]): { firstHalf: number; secondHalf: number; first: number; last: number } {
  const middle = Math.floor(samples.length / 2);
  return {
    firstHalf: slopePerMinute(samples.slice(0, middle)),
    secondHalf: slopePerMinute(samples.slice(middle)),
    first: samples[0]?.value ?? Number.NaN,
    last: samples.at(-1)?.value ?? Number.NaN,
  };
}
