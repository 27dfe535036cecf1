/** Typed events of a delivery run. The engine and the simulation emit them; nothing in them prints. */
import type { AttemptOutcome } from './classify-outcome.js';
import type { RetryDecision } from './decide-retry.js';
import type { Attempt, Delivery } from './delivery-state.js';
import type { SuspendReason, WebhookState } from './webhook-state.js';

export type DeliveryEvent =
  | { type: 'attempt_started'; index: number; deliveryId: string; attemptNumber: number; startedAt: string }
  | {
      type: 'attempt_finished';
      index: number;
      deliveryId: string;
      attempt: Attempt;
      outcome: AttemptOutcome;
      decision: RetryDecision;
      /** The wait before the next attempt in the run's clock (policy wait × timeScale). */
      scaledWaitMs: number | null;
      delivery: Delivery;
      /** Why a hookrelay receiver refused it, by code (e.g. SIGNATURE_MISMATCH); absent otherwise. */
      receiverCode?: string;
    }
  | { type: 'delivery_finished'; index: number; delivery: Delivery }
  | { type: 'webhook_suspended'; webhook: WebhookState; reason: SuspendReason; byDeliveryId: string };

export type DeliveryEventListener = (event: DeliveryEvent) => void;
