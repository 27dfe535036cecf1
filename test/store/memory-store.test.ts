import { createMemoryStore } from '../../src/store/memory-store.js';
import { describeBridgeContract, describeRelayContract, describeRetentionContract, describeStoreContract } from './store-contract.js';

describeStoreContract('memory', async (options) => createMemoryStore(options));
describeRelayContract('memory', async (options) => createMemoryStore(options));
describeRetentionContract('memory', async (options) => createMemoryStore(options));
describeBridgeContract('memory', async (options) => createMemoryStore(options));
