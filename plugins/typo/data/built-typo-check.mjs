// The typo check of a built checkout (its dist/, through the real policy compiler), for the figures
// scripts beside this file: one soft typo_detection policy, and a fact of its evaluation of an address.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Loads `root`'s dist/; `textFact(email, fact)` is the fact's value for the address, null unless a string. */
export async function builtTypoCheck(root, name) {
  const load = (path) => import(pathToFileURL(resolve(root, 'dist', path)).href);
  const [{ registry }, { FactCatalog }, { loadPolicy }, { evaluate }, { noHistory }] = await Promise.all([
    load('plugins/index.js'),
    load('src/engine/catalog.js'),
    load('src/policy/load.js'),
    load('src/policy/evaluate.js'),
    load('src/engine/no-history.js'),
  ]);
  const policyText = JSON.stringify({ version: '1', default_action: 'allow', checks: { typo_detection: { mode: 'soft' } } });
  const policy = loadPolicy({ name, file: `${name}.json`, text: policyText }, new FactCatalog(registry));
  return {
    load,
    async textFact(email, fact) {
      const errors = [];
      const input = { email, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: name };
      const evaluation = await evaluate(policy, input, { velocity: noHistory, now: Date.now, onPluginError: (_id, error) => errors.push(error) });
      const value = await evaluation.fact(fact);
      if (errors.length > 0) throw errors[0];
      return typeof value === 'string' ? value : null;
    },
  };
}
