import express from 'express';
import { hookrelay, isEvent } from 'hookrelay/express';
import { ServiceError, type ServiceClient } from 'hookrelay/client';
import { decide } from './decide.js';

export interface AutoApproveOptions {
  secret: string;
  client: ServiceClient;
  allowedDomains: readonly string[];
  /** One JSON object per thing that happened. */
  log: (line: Record<string, unknown>) => void;
}

/**
 * Reads each requested access request, approves or rejects it, and answers 2xx only once the
 * decision is made: when the API call fails the delivery is answered 500 and the service retries it.
 */
export function createAutoApprove(options: AutoApproveOptions): express.Express {
  const { client, allowedDomains, log } = options;
  const app = express();
  // No dedupe: the decision is idempotent (a second one answers 409), and a copy that arrived while the
  // first was still deciding must not be answered 2xx before any decision was made.
  app.post('/webhooks', hookrelay({ secrets: [options.secret], onError: (e) => log({ refused: e.code, hints: e.hints }) }), async (req, res) => {
    const event = req.webhook!;
    try {
      if (isEvent(event, 'trustcenter.access_requested')) {
        await handleRequested(event.data.accessRequestId);
      } else if (isEvent(event, 'trustcenter.access_approved') || isEvent(event, 'trustcenter.access_rejected')) {
        log({ seen: event.type, accessRequestId: event.data.accessRequestId, decidedBy: event.data.decidedBy });
      }
      res.sendStatus(200);
    } catch (err) {
      log({ failed: event.type, id: event.id, error: err instanceof ServiceError ? { code: err.apiCode ?? err.code, status: err.status, requestId: err.requestId } : String(err) });
      res.sendStatus(500);
    }
  });

  async function handleRequested(id: string): Promise<void> {
    const request = await client.trustCenter.accessRequest(id);
    const decision = decide(request, allowedDomains);
    try {
      // The status read a moment ago may be stale by now: the service's 409 is the answer that counts.
      if (decision.approve) await client.trustCenter.approve(id, { reference: decision.reference });
      else await client.trustCenter.reject(id, { reason: decision.reason });
      log({ decided: decision.approve ? 'approved' : 'rejected', accessRequestId: id, visitorEmail: request.visitorEmail });
    } catch (err) {
      if (err instanceof ServiceError && err.apiCode === 'ACCESS_REQUEST_ALREADY_DECIDED') {
        log({ done: 'already decided', accessRequestId: id });
        return;
      }
      // A decision the service refuses as given fails the same way on every retry: said, and not retried
      // (answering 500 forever would count towards suspending the webhook).
      if (err instanceof ServiceError && err.status === 422) {
        log({ refused: 'decision refused by the service', accessRequestId: id, error: { code: err.apiCode, requestId: err.requestId } });
        return;
      }
      throw err;
    }
  }

  return app;
}
