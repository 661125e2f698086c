import knownAbuse from '../../plugins/known-abuse/index.js';
import { listedDomainSuite } from '../support/listed-domain-suite.js';

listedDomainSuite({ plugin: knownAbuse, check: 'known_abuse_domain', flag: 'is_known_abuse_domain', match: 'known_abuse_match', shipsEmpty: true });
