/**
 * The string formats the trigger schemas name (`uuid`, `date-time`), as tests: the one definition
 * the emulator's data check and the drift check (runtime/trigger-drift.ts hands them to ajv) share.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 3339 section 5.6, with the date it names being a real one.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export const STRING_FORMATS = {
  uuid: (value: string): boolean => UUID.test(value),
  'date-time': (value: string): boolean => RFC3339.test(value) && Number.isFinite(Date.parse(value)),
} as const;

export type StringFormat = keyof typeof STRING_FORMATS;
