/** `hookrelay/testing`: an in-process receiver for test suites. */
export { startTestReceiver } from './start-test-receiver.js';
export type { DeliveryMatch, ReceivedDelivery, TestReceiver, TestReceiverOptions } from './start-test-receiver.js';
