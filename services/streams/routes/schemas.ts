import { z } from 'zod';
import { nameSchema } from '../../core/index.js';
import { STREAM_TYPES } from '../definitions/filters.js';

export const streamIdSchema = z.string().min(1).max(64);
export const streamNameSchema = nameSchema;

/** A stream as the management API returns it (spec: "yielding a Stream ID"). */
export const streamSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(STREAM_TYPES),
  filters: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

/**
 * `fromCheckpoint`, in the answer of a creation (stream or webhook): the ingest reads what it
 * matches before each checkpoint, so a definition applies to every checkpoint sealed after the
 * 201, the transfer a user makes right after it included.
 */
export const fromCheckpointSchema = z.string().nullable().meta({
  description: 'The first checkpoint sure to be matched (decimal string); every checkpoint sealed after this response is at or above it. ' +
    'null while no checkpoint of the network has been ingested yet: then every checkpoint ingested applies.',
  example: '1234568',
});

export const createdStreamSchema = streamSchema.extend({ fromCheckpoint: fromCheckpointSchema });
