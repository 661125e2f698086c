import knownAbuse from './index.js';
import { listedDomainSuite } from '../../test/support/listed-domain-suite.js';

listedDomainSuite({ plugin: knownAbuse, check: 'known_abuse_domain', flag: 'is_known_abuse_domain', match: 'known_abuse_match', shipsEmpty: true });
