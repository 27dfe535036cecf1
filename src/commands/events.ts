/** `hookrelay events`: the command that reads and acts on the store without starting the receiver; each subcommand is in its own file. */
import type { Command } from 'commander';
import { registerEventsExportCommand } from './events-export-command.js';
import { registerEventsListCommand } from './events-list.js';
import { registerEventsReplayCommand } from './events-replay.js';
import { registerEventsRetargetCommand } from './events-retarget.js';
import { registerEventsRetryCommand } from './events-retry.js';
import { registerEventsShowCommand } from './events-show.js';

export function registerEventsCommand(program: Command): Command {
  const events = program.command('events').description('read stored deliveries and attempts');

  registerEventsListCommand(events);
  registerEventsShowCommand(events);
  registerEventsReplayCommand(events);
  registerEventsRetryCommand(events);
  registerEventsExportCommand(events);
  registerEventsRetargetCommand(events);
  return events;
}
