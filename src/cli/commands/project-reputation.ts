// `email-trust project set-reputation-sharing <project> on|off`: whether the project's labels count in the
// deployment's shared reputation, and whether its reputation facts read it (both only with SHARED_REPUTATION=on;
// on by default). Off from now on: labels it shared before stay counted there (counts only).
import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config.js';
import { UsageError } from '../errors.js';
import { findProject, projectSummary } from '../projects.js';
import { withStore } from '../with-store.js';

export function addProjectReputationCommands(project: Command): void {
  project
    .command('set-reputation-sharing')
    .description(
      "whether the project's labels count in, and its reputation facts read, the deployment's shared counts (SHARED_REPUTATION=on; on by default); running services apply it within 5 seconds",
    )
    .argument('<name-or-id>', 'the project')
    .argument('<on|off>', 'on: share; off: opt out', onOff)
    .option('--json', 'print one JSON object on stdout', false)
    .action(setSharing);
}

function onOff(value: string): boolean {
  if (value !== 'on' && value !== 'off') throw new InvalidArgumentError('give on or off');
  return value === 'on';
}

async function setSharing(nameOrId: string, shares: boolean, opts: { json: boolean }): Promise<void> {
  const updated = await withStore(async (store) => store.projects.update((await findProject(store, nameOrId)).id, { sharesReputation: shares }));
  if (!updated) throw new UsageError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``);
  const deployment = loadConfig().sharedReputation;
  if (opts.json) {
    console.log(JSON.stringify({ project: projectSummary(updated), shares_reputation: updated.sharesReputation, shared_reputation: deployment }));
    return;
  }
  const what = updated.sharesReputation ? 'shares its reputation' : 'does not share its reputation';
  const off = deployment ? '' : ' (SHARED_REPUTATION is off here: no project shares until it is on)';
  console.log(`Project "${updated.name}" (${updated.id}) ${what}${off}; running services apply it within 5 seconds.`);
}
