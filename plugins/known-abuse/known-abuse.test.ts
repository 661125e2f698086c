import { labelledDomainSuite } from '../../test/support/labelled-domain-suite.js';
import { listedDomainSuite } from '../../test/support/listed-domain-suite.js';
import knownAbuse from './index.js';

listedDomainSuite({ plugin: knownAbuse, check: 'known_abuse_domain', flag: 'is_known_abuse_domain', match: 'known_abuse_match', shipsEmpty: true });
labelledDomainSuite({ plugin: knownAbuse, check: 'known_abuse_domain', flag: 'is_known_abuse_domain', match: 'known_abuse_match', label: 'fraud' });
labelledDomainSuite({ plugin: knownAbuse, check: 'known_abuse_domain', flag: 'is_known_abuse_domain', match: 'known_abuse_match', label: 'abuse' });
