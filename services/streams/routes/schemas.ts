import { z } from 'zod';
import { STREAM_TYPES } from '../definitions/filters.js';

export const streamIdSchema = z.string().min(1).max(64);
export const streamNameSchema = z.string().trim().min(1).max(100);

/** A stream as the management API returns it (spec: "yielding a Stream ID"). */
export const streamSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(STREAM_TYPES),
  filters: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
