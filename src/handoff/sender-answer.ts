import type { TargetAnswer } from './post-to-target.js';

/** What the sender is told when the app did not answer 2xx. */
export function senderAnswerFor(answer: TargetAnswer): { status: number; code: string; message: string } {
  if (answer.status === null) {
    const timedOut = answer.error?.startsWith('timeout') ?? false;
    return timedOut
      ? { status: 504, code: 'TARGET_TIMEOUT', message: `the forward target did not answer in time (${answer.error})` }
      : { status: 502, code: 'TARGET_UNREACHABLE', message: `the forward target could not be reached (${answer.error ?? 'no answer'})` };
  }
  // A redirect is not followed, and is not passed on either: the sender would follow it elsewhere.
  if (answer.status < 400) return { status: 502, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; redirects are not followed` };
  return { status: answer.status, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; the delivery was not accepted` };
}

const TARGET_CODE = /^TARGET_(?:STATUS_(\d{3})|TIMEOUT|UNREACHABLE)$/;

/**
 * An attempt refused with a code of senderAnswerFor, in words for a log line: no check of the
 * receiver refused it, the app did, and the sender was told so. `label` stands where "rejected"
 * would; `senderStatus` is the status the sender got. Null for any other code.
 */
export function targetRefusalWords(code: string, senderStatus: number | null): { label: string; words: string } | null {
  const match = TARGET_CODE.exec(code);
  if (match === null) return null;
  const got = senderStatus === null ? 'no status' : String(senderStatus);
  if (code === 'TARGET_TIMEOUT') return { label: 'app failed', words: `the app did not answer in time: the sender got ${got}, not stored` };
  if (code === 'TARGET_UNREACHABLE') return { label: 'app failed', words: `the app could not be reached: the sender got ${got}, not stored` };
  const app = Number(match[1]);
  if (app === senderStatus) return { label: 'app refused', words: `the app answered ${app}: passed on to the sender, not stored` };
  const redirect = app >= 300 && app < 400 ? ' (a redirect: not followed)' : '';
  return { label: 'app refused', words: `the app answered ${app}${redirect}: the sender got ${got}, not stored` };
}
