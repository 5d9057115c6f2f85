/** `Retry-After` and the body's `retryAfter`, the same whole number of seconds (at least 1), for an ApiError's options. */
export function retryAfter(seconds: number): { fields: { retryAfter: number }; headers: { 'retry-after': string } } {
  const whole = Math.max(1, Math.ceil(seconds));
  return { fields: { retryAfter: whole }, headers: { 'retry-after': String(whole) } };
}
