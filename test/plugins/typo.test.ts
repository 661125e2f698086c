import { it } from 'vitest';
import { TypoSuggester } from '../../plugins/typo/suggest.js';
import { readPopularDomains } from '../../plugins/typo/popular-domains.js';
it('explore', () => {
  const s = new TypoSuggester(readPopularDomains());
  const inputs = 'gmial.com hotmial.co.uk yahooo.com gmail.con outlok.com gmai.com gamil.com gmal.com gmaill.com gnail.com gmail.co gmail.cm gmail.om gmail.comm gmail.vom gmail.xom gmail.ocm gmail.cmo gmailcom hotmal.com hotmai.com hotmail.co hotmial.com hotmil.com yaho.com yahho.com yahoo.cm yahoo.co yhaoo.com outllok.com outlook.con iclod.com icoud.com icloud.co comcst.net comcast.com sbcglobl.net verizon.com aol.con aoll.com ao.com protonmial.com protonmail.cm yandex.ri yandx.ru gmx.dee web.dr hotmail.fr.com gmail.de mail.de aig.com ibm.com mw.com box.com cnn.com example.com gmaill-consulting.com acme.co gmx.com mail.com email.com aim.com ymail.com hotmail.fr live.co.uk yandex.ru yahoo.fr outlook.de yahoo.co.jp gmx.de web.de orange.com web.com sky.de att.com live.de lve.com liv.com yahoo.de.com gmial.fr hotmail.co.jp hotmail.jp hotmai.co.uk googlemail.con googlmail.com qq.con 163.con 126.cm mac.co me.co msn.co hotmsil.com hotmart.com gmial.con mail.gmail.com gmail.co.uk yahoo.co.uk.com outlook.co hotmail.c gmail.c gmail yahoo hotmail gmailcom.com gmail.com.br gmail.net yahoo.net hotmail.net aol.co outlook.om ymail.co yahoomail.com hotmai.fr hotmail.frr horizon.net verizon.ne comcast.ne sbcglobal.ne att.ne hotnail.com gmsil.com yahoi.com'.split(' ');
  console.log(inputs.map((d) => `${d}→${s.suggest(d) ?? '-'}`).join('  '));
});
