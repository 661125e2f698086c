import type { Plugin } from '../../src/engine/plugin.js';

// Placeholder until the plugin is written; registered so the registry is complete.
const plugin: Plugin = {
  id: 'free-provider',
  description: 'not yet written',
  steps: [],
  facts: {},
  checks: {},
  needs: [],
  run: () => ({}),
};

export default plugin;
