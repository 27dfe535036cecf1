/**
 * The code a refused delivery is answered with (the `code` of spec 7's error envelope), by why it
 * was refused: one table, read by the receiver (src/ingest/pipeline.ts) and by the kit's adapters
 * (src/kit/errors.ts), so an app verifying with the library answers as `listen` does.
 */
import type { EnvelopeProblem } from './envelope-types.js';
import type { VerifyFailure } from './signature/verify-verdict.js';

export const SIGNATURE_CODES: Readonly<Record<VerifyFailure, string>> = Object.freeze({
  missing: 'SIGNATURE_MISSING',
  malformed: 'SIGNATURE_MALFORMED',
  no_signatures: 'SIGNATURE_NO_V1',
  mismatch: 'SIGNATURE_MISMATCH',
  timestamp_too_old: 'TIMESTAMP_TOO_OLD',
  timestamp_in_future: 'TIMESTAMP_IN_FUTURE',
});

export const ENVELOPE_CODES: Readonly<Record<EnvelopeProblem, string>> = Object.freeze({
  invalid_json: 'INVALID_JSON',
  invalid_envelope: 'INVALID_ENVELOPE',
  delivery_id_mismatch: 'DELIVERY_ID_MISMATCH',
  event_type_mismatch: 'EVENT_TYPE_MISMATCH',
});
