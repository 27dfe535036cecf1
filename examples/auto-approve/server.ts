import { createServiceClient } from 'hookrelay/client';
import { createAutoApprove } from './app.js';

const need = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`${name} is not set (see examples/auto-approve/README.md)`);
    process.exit(2);
  }
  return value;
};

const client = createServiceClient({ baseUrl: need('HOOKRELAY_API_URL'), apiKey: need('HOOKRELAY_API_KEY') });
const allowedDomains = need('ALLOWED_DOMAINS').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean);
const app = createAutoApprove({ secret: need('WEBHOOK_SECRET'), client, allowedDomains, log: (line) => console.log(JSON.stringify(line)) });

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error?: Error) => {
  if (error) {
    console.error(`cannot listen: ${error.message}`);
    process.exit(1);
  }
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/webhooks`);
});
const stop = () => {
  server.close(() => void client.close());
  // A relay such as `hookrelay listen` keeps its connections open: without this, close() waits on them.
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
