/** `hookrelay/testing`: an in-process receiver for test suites. */
import { assertTestingPackages } from './needed-packages.js';

export type { DeliveryMatch, ReceivedDelivery, TestReceiver, TestReceiverOptions } from './start-test-receiver.js';

// Checked before the receiver's modules load, so a missing package is named with its install command.
assertTestingPackages(import.meta.url);
export const { startTestReceiver } = await import('./start-test-receiver.js');
