import { labelledDomainSuite } from '../../test/support/labelled-domain-suite.js';
import { listedDomainSuite } from '../../test/support/listed-domain-suite.js';
import spamTrap from './index.js';

listedDomainSuite({ plugin: spamTrap, check: 'spam_trap_domain', flag: 'is_spam_trap_domain', match: 'spam_trap_match', shipsEmpty: true });
labelledDomainSuite({ plugin: spamTrap, check: 'spam_trap_domain', flag: 'is_spam_trap_domain', match: 'spam_trap_match', label: 'spam_trap' });
