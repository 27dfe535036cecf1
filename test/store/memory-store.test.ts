import { createMemoryStore } from '../../src/store/memory-store.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('memory', async () => createMemoryStore());
