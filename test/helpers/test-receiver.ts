/** The receiver listener on a pipeline built from ingest options, for tests of one part without a whole node. */
import type { FastifyInstance } from 'fastify';
import { buildReceiver, type ReceiverSettings } from '../../src/ingest/build-receiver.js';
import { createIngestPipeline, type IngestOptions } from '../../src/ingest/pipeline.js';

export function testReceiver(options: IngestOptions & Omit<ReceiverSettings, keyof IngestOptions>): FastifyInstance {
  return buildReceiver({ ...options, pipeline: createIngestPipeline(options) });
}
