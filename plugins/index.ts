// The registry: an explicit, sorted list of every plugin. Adding a check is one folder plus one line.
import type { Plugin } from '../src/engine/plugin.js';
import allowedDomains from './allowed-domains/index.js';
import deliverability from './deliverability/index.js';
import disposable from './disposable/index.js';
import dns from './dns/index.js';
import domainAge from './domain-age/index.js';
import domainForm from './domain-form/index.js';
import domainHealth from './domain-health/index.js';
import education from './education/index.js';
import fraudPattern from './fraud-pattern/index.js';
import freeProvider from './free-provider/index.js';
import government from './government/index.js';
import idn from './idn/index.js';
import knownAbuse from './known-abuse/index.js';
import length from './length/index.js';
import localPart from './local-part/index.js';
import normalize from './normalize/index.js';
import roleBased from './role-based/index.js';
import spamTrap from './spam-trap/index.js';
import structure from './structure/index.js';
import subdomain from './subdomain/index.js';
import tld from './tld/index.js';
import typo from './typo/index.js';
import velocity from './velocity/index.js';
import website from './website/index.js';

export const registry: readonly Plugin[] = [
  allowedDomains,
  deliverability,
  disposable,
  dns,
  domainAge,
  domainForm,
  domainHealth,
  education,
  fraudPattern,
  freeProvider,
  government,
  idn,
  knownAbuse,
  length,
  localPart,
  normalize,
  roleBased,
  spamTrap,
  structure,
  subdomain,
  tld,
  typo,
  velocity,
  website,
];
