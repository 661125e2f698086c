// The project's own lists against the shipped disposable list and the names it never flags: the project's
// entries come first, so a project may exempt a listed domain or list one the shipped data never flags.
import disposable from '../../plugins/disposable/index.js';
import { testPlugin } from '../support/plugin-tester.js';

const no = { is_disposable_domain: false, disposable_match: null };
const listed = (match: string) => ({ is_disposable_domain: true, disposable_match: match });

testPlugin(disposable, [{ name: 'shipped list, no project list', email: 'a@mailinator.com', facts: listed('mailinator.com'), fires: ['disposable_domain'] }]);

testPlugin(
  disposable,
  [
    { name: 'not-disposable exempts a shipped entry', email: 'a@mailinator.com', facts: no, fires: [] },
    { name: 'not-disposable covers subdomains', email: 'a@x.mailinator.com', facts: no, fires: [] },
    { name: 'other shipped entries stay listed', email: 'a@yopmail.com', facts: listed('yopmail.com'), fires: ['disposable_domain'] },
    { name: 'the disposable list flags a name the shipped data never flags', email: 'a@duck.com', facts: listed('duck.com'), fires: ['disposable_domain'] },
    { name: 'project entry for a fresh domain', email: 'a@throwaway.example', facts: listed('throwaway.example'), fires: ['disposable_domain'] },
    {
      name: 'a more specific project entry beats the exempted parent',
      email: 'a@burner.mailinator.com',
      facts: listed('burner.mailinator.com'),
      fires: ['disposable_domain'],
    },
  ],
  { lists: { disposable: ['duck.com', 'throwaway.example', 'burner.mailinator.com'], 'not-disposable': ['mailinator.com'] } },
);
