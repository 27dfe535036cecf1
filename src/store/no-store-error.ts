/** Thrown when a command would read a store that is not there (a SQLite file that does not exist, a PostgreSQL schema with no hookrelay store); nothing is created. */
export class NoStoreError extends Error {
  readonly code = 'NO_STORE';
}
