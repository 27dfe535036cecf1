/** Spec 6.4 and 8: an attempt that gets no response within 10 s is a `timeout`. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
