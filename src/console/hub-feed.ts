/** Turns hub events into feed messages (issue 6: attempt recorded, delivery accepted, relay result, rules changed; a bulk replay's progress). */
import type { EventHub } from '../runtime/event-hub.js';
import type { Feed } from './feed.js';
import { attemptView, clip, deliverySummary, relayView, type AttemptView } from './views.js';

/** Rule lists larger than this are announced without the rules (the page fetches them). */
const MAX_RULES_IN_MESSAGE = 50;

export interface HubFeedOptions {
  hub: EventHub;
  feed: Feed;
  secretHints: () => readonly string[];
  redact: (text: string) => string;
  now: () => number;
}

/** Subscribes; returns a function that unsubscribes everything. */
export function publishHubToFeed({ hub, feed, secretHints, redact, now }: HubFeedOptions): () => void {
  const offs = [
    hub.on('attempt', ({ attempt, skipVerify }) => {
      // Added to the fresh view, not spread into a copy of it: a spread cost more than the view.
      const view: AttemptView & { skipVerify?: boolean } = attemptView(attempt);
      view.skipVerify = skipVerify;
      feed.publish('attempt', view);
    }),
    // The hub carries the headers too; the feed sends the summary and the page asks for the rest.
    hub.on('delivery', ({ delivery }) => feed.publish('delivery', deliverySummary(delivery, secretHints()))),
    hub.on('relay', (r) =>
      feed.publish('relay', {
        deliveryId: clip(r.deliveryId),
        target: redact(clip(r.target)),
        ...relayView({ at: now(), ok: r.ok, status: r.status, latencyMs: r.latencyMs, replay: r.replay, error: r.error === undefined ? undefined : redact(r.error), nextRetryAt: r.nextRetryAt }),
      }),
    ),
    hub.on('rules', ({ rules, change }) =>
      feed.publish('rules', {
        change: clip(String(change), 200),
        count: rules.length,
        ...(rules.length <= MAX_RULES_IN_MESSAGE ? { rules } : {}),
      }),
    ),
    hub.on('replayJob', (job) =>
      feed.publish('replayJob', { ...job, ...(job.error === undefined ? {} : { error: clip(redact(job.error), 500) }) }),
    ),
    hub.on('notice', ({ level, message }) => feed.publish('notice', { level, message: clip(redact(String(message))) })),
  ];
  return () => offs.forEach((off) => off());
}
