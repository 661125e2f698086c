// The registry: an explicit, sorted list of every plugin. Adding a check is one folder plus one line.
import type { Plugin } from '../src/engine/plugin.js';
import domainForm from './domain-form/index.js';
import idn from './idn/index.js';
import length from './length/index.js';
import localPart from './local-part/index.js';
import structure from './structure/index.js';
import subdomain from './subdomain/index.js';
import tld from './tld/index.js';
import velocity from './velocity/index.js';

export const registry: readonly Plugin[] = [
  domainForm,
  idn,
  length,
  localPart,
  structure,
  subdomain,
  tld,
  velocity,
];
