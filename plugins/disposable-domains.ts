// The domains of known disposable mail services (plugins/disposable/data/domains.txt), read once: the
// disposable plugin matches an address's domain against them and disposable-infrastructure an MX host.
// A shared module, as a plugin imports helpers in plugins/ and never a neighbour's folder.
import { readList } from './plugin-data.js';

export const DISPOSABLE_DATA = { pluginId: 'disposable', file: 'domains.txt' } as const;

export const disposableDomains: ReadonlySet<string> = readList(DISPOSABLE_DATA.pluginId, DISPOSABLE_DATA.file);
