import spamTrap from '../../plugins/spam-trap/index.js';
import { listedDomainSuite } from '../support/listed-domain-suite.js';

listedDomainSuite({ plugin: spamTrap, check: 'spam_trap_domain', flag: 'is_spam_trap_domain', match: 'spam_trap_match', shipsEmpty: true });
