// GET /playground: a sandbox project's policy in an Ace editor (ace-builds, served by this service), each
// edit and address sent to POST /v1/playground/evaluate after a pause in typing; compile problems are
// marked at their line, a compiled policy's answer shows its action, steps and explain; the Replay button
// asks for the project's stored events re-decided by the text (`replay: true`), shown as the from → to
// matrix and, for labelled events, the confusion table of `policy replay --labels`. The access token
// comes from the form, the page's #key=… (then dropped from the address bar) or this browser's storage.
(() => {
  const KEY_STORAGE = 'email-trust.playground.key';
  const DEBOUNCE_MS = 300;
  const $ = (id) => document.getElementById(id);

  // Strict CSP: Ace's styles come from ace.css and textmate.css, not from <style> elements it would insert.
  ace.config.set('useStrictCSP', true);
  // useWorker first: the mode would start its syntax worker from a blob: URL, which the CSP refuses.
  const editor = ace.edit('editor', {
    useWorker: false,
    mode: 'ace/mode/yaml',
    theme: 'ace/theme/textmate',
    tabSize: 2,
    useSoftTabs: true,
    showPrintMargin: false,
    fontSize: 13,
  });
  const session = editor.getSession();

  let key = '';
  let loaded = false;
  let sent = 0;
  let timer;
  let markers = [];

  function status(message) {
    $('status').textContent = message;
    $('status').hidden = !message;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function call(method, path, body) {
    const response = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(`${response.status}: ${json.error || response.statusText}`);
    return json;
  }

  async function loadPolicy() {
    key = $('key').value.trim();
    loaded = false;
    $('project').textContent = '';
    if (!key) {
      status('Paste the access token of a sandbox project (email-trust project create --name NAME --sandbox prints one).');
      return;
    }
    status('');
    try {
      const policy = await call('GET', '/v1/playground/policy');
      localStorage.setItem(KEY_STORAGE, key);
      const inUse = policy.in_use === null ? ', which does not compile' : policy.in_use !== policy.revision ? `; in use: ${policy.in_use}` : '';
      $('project').textContent = `project ${policy.project}, policy ${policy.policy} (revision ${policy.revision}${inUse})`;
      loaded = true;
      editor.setValue(policy.source, -1);
      evaluateSoon(0);
    } catch (error) {
      localStorage.removeItem(KEY_STORAGE);
      status(error.message);
    }
  }

  function evaluateSoon(delay = DEBOUNCE_MS) {
    clearTimeout(timer);
    if (loaded) timer = setTimeout(evaluate, delay);
  }

  async function evaluate() {
    const request = { policy: editor.getValue() };
    const email = $('email').value.trim();
    const ipv4 = $('ipv4').value.trim();
    if (email) request.email_address = email;
    if (ipv4) request.ipv4_address = ipv4;
    const mine = ++sent;
    try {
      const answer = await call('POST', '/v1/playground/evaluate', request);
      if (mine !== sent) return; // a later edit's answer is on its way
      status('');
      showProblems(answer.compiled ? [] : answer.problems);
      if (answer.compiled) showResult(answer.result, answer.revision);
      else $('result').replaceChildren(el('p', 'hint', 'Fix the policy to see the result.'));
    } catch (error) {
      if (mine === sent) status(error.message);
    }
  }

  async function replay() {
    if (!loaded) return;
    const button = $('replay-button');
    button.disabled = true;
    $('replay').replaceChildren(el('p', 'hint', 'Replaying…'));
    try {
      const answer = await call('POST', '/v1/playground/evaluate', { policy: editor.getValue(), replay: true });
      if (!answer.compiled) {
        showProblems(answer.problems);
        $('replay').replaceChildren(el('p', 'hint', 'Fix the policy to replay the stored events.'));
      } else showReplay(answer.replay, answer.revision);
    } catch (error) {
      $('replay').replaceChildren();
      status(error.message);
    } finally {
      button.disabled = false;
    }
  }

  function table(id, head, rows) {
    const t = el('table');
    if (id) t.id = id;
    const tr = el('tr');
    for (const h of head) tr.append(el('th', null, h));
    t.append(tr);
    for (const row of rows) {
      const line = el('tr');
      for (const cell of row) line.append(el('td', null, String(cell)));
      t.append(line);
    }
    return t;
  }

  function showReplay(report, revision) {
    const cut = report.stored > report.events ? ` (the first ${report.events} of ${report.stored})` : '';
    const parts = [
      el('p', 'replay-summary', `${report.events} events since ${report.since}${cut} replayed by revision ${revision}: ${report.changed} would change action.`),
    ];
    if (report.events > 0) {
      parts.push(
        table(
          'replay-matrix',
          ['from', 'to', 'events', 'samples'],
          report.matrix.map((c) => [c.from, c.to, c.count, c.samples.join(', ')]),
        ),
      );
    }
    const labels = report.labels;
    if (labels && labels.labelled > 0) {
      const ratio = (v) => (v === null ? 'n/a' : v.toFixed(3));
      const rows = [];
      for (const side of ['bad', 'good']) {
        for (const outcome of ['blocked', 'challenged', 'allowed']) {
          const name = side === 'good' && outcome !== 'allowed' ? `${outcome} (false positive)` : outcome;
          rows.push([`labelled ${side}`, name, labels.current[side][outcome], labels.candidate[side][outcome]]);
        }
      }
      rows.push(['precision', 'block or challenge', ratio(labels.current.precision), ratio(labels.candidate.precision)]);
      rows.push(['recall', 'block or challenge', ratio(labels.current.recall), ratio(labels.candidate.recall)]);
      parts.push(
        el('h3', null, `Against the labels: ${labels.labelled} labelled, ${labels.unlabelled} unlabelled`),
        table('replay-labels', ['labelled', 'action', 'current (stored)', 'this text'], rows),
        el(
          'p',
          'hint',
          'Current: the action stored with each event, what was decided then. Challenged: every action between allow and block. Precision: flagged and labelled bad ÷ flagged and labelled; recall: flagged and labelled bad ÷ labelled bad.',
        ),
      );
    } else if (report.events > 0) {
      parts.push(el('p', 'hint', 'None of these events has a label yet (POST /v1/feedback, email-trust feedback import).'));
    }
    $('replay').replaceChildren(...parts);
  }

  function showProblems(problems) {
    for (const id of markers) session.removeMarker(id);
    markers = [];
    session.setAnnotations(
      problems.map((p) => ({ row: Math.max(0, p.line - 1), column: Math.max(0, p.column - 1), text: `${p.path || '/'}: ${p.message}`, type: 'error' })),
    );
    const Range = ace.require('ace/range').Range;
    for (const p of problems) {
      const row = Math.max(0, p.line - 1);
      markers.push(session.addMarker(new Range(row, 0, row, 1), 'problem-line', 'fullLine'));
    }
    const list = el('ul');
    for (const p of problems) {
      const item = el('li', 'problem', `${p.line > 0 ? `line ${p.line}, column ${p.column}` : 'policy'}: ${p.path || '/'}: ${p.message}`);
      item.dataset.line = String(p.line);
      list.append(item);
    }
    $('problems').replaceChildren(...(problems.length > 0 ? [el('h2', null, `${problems.length} problem(s): the policy does not compile`), list] : []));
  }

  function showResult(result, revision) {
    if (!result) {
      $('result').replaceChildren(
        el('p', 'hint', `The policy compiles (revision ${revision}). Enter an address to see the action, the steps that ran and why.`),
      );
      return;
    }
    const explain = result.explain;
    const parts = [];
    const action = el('p', 'action');
    action.append('action ', el('strong', `badge ${result.action}`, result.action));
    action.querySelector('strong').id = 'action';
    parts.push(action, el('p', 'why', explain.why), el('p', 'hint', `Decided by the text in the editor (revision ${revision}); nothing was stored.`));
    const exempted = (explain.exemptions || []).map((e) => (e.set_aside.length > 0 ? `${e.name} (set aside ${e.set_aside.join(', ')})` : e.name));
    const codes = [
      ['errors', result.errors],
      ['warnings', result.warnings],
      ['exemptions', exempted],
      ['steps', result.steps],
    ];
    const facts = el('dl');
    for (const [name, values] of codes) {
      facts.append(el('dt', null, name), el('dd', null, values && values.length > 0 ? values.join(', ') : '(none)'));
    }
    if (result.risk_score !== undefined) facts.append(el('dt', null, 'risk_score'), el('dd', null, `${result.risk_score} ${result.risk_level || ''}`));
    parts.push(facts, el('h2', null, 'Explain: each exemption, check and rule, in policy order'));
    const entries = el('ol', 'explain');
    entries.id = 'explain';
    for (const entry of explain.entries) entries.append(explainedEntry(entry));
    parts.push(entries);
    const raw = el('details');
    raw.append(el('summary', null, 'The whole answer (JSON)'), el('pre', null, JSON.stringify(result, null, 2)));
    parts.push(raw);
    $('result').replaceChildren(...parts);
  }

  function explainedEntry(entry) {
    const item = el('li', entry.fired ? 'entry fired' : 'entry');
    const head = el('div', 'entry-head');
    if (entry.kind === 'exemption') {
      const from = entry.exempts === 'all' ? 'every check and rule' : entry.exempts.join(', ');
      head.append(el('span', 'mark', entry.fired ? 'applied' : '—'), el('code', 'name', entry.name), ` exemption from ${from}`);
      item.append(head, condition(entry.conditions));
      return item;
    }
    head.append(
      el('span', 'mark', entry.fired ? 'fired' : '—'),
      el('code', 'name', entry.name),
      ` ${[entry.kind, entry.mode].filter(Boolean).join(', ')} → `,
      el('span', `badge ${entry.action}`, entry.action),
      entry.code ? ` (${entry.code})` : '',
      entry.exempted_by ? `, set aside by exemption ${entry.exempted_by.join(', ')}` : '',
    );
    item.append(head, condition(entry.conditions));
    if (entry.on_unknown) {
      const u = entry.on_unknown;
      const facts = u.unknown_facts.length > 0 ? `unknown: ${u.unknown_facts.join(', ')}` : 'no fact unknown';
      item.append(el('div', u.fired ? 'unknown fired' : 'unknown', `on_unknown ${u.action}: ${facts}${u.fired ? ' → fired' : ''}`));
    }
    return item;
  }

  function condition(node) {
    const held = node.held === null ? 'not evaluated' : node.held ? 'held' : 'did not hold';
    const box = el('div', `condition ${node.held === true ? 'held' : node.held === false ? 'not-held' : 'skipped'}`);
    if ('all' in node || 'any' in node) {
      box.append(el('span', null, `${'all' in node ? 'all of' : 'any of'}: ${held}`));
      for (const child of node.all || node.any) box.append(condition(child));
    } else if ('not' in node) {
      box.append(el('span', null, `not: ${held}`), condition(node.not));
    } else {
      const saw = !('saw' in node) ? '' : `saw ${JSON.stringify(node.saw)}${node.unknown ? ' (unknown)' : ''}, `;
      box.append(el('code', null, `${node.fact} ${node.operator} ${JSON.stringify(node.value)}`), `: ${saw}${held}`);
    }
    return box;
  }

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadPolicy();
  });
  $('address-form').addEventListener('submit', (event) => event.preventDefault());
  $('replay-button').addEventListener('click', () => replay());
  $('email').addEventListener('input', () => evaluateSoon());
  $('ipv4').addEventListener('input', () => evaluateSoon());
  session.on('change', () => evaluateSoon());

  const fromHash = new URLSearchParams(location.hash.slice(1)).get('key');
  if (fromHash) history.replaceState(null, '', location.pathname + location.search);
  $('key').value = fromHash || localStorage.getItem(KEY_STORAGE) || '';
  if ($('key').value) loadPolicy();
  else status('Paste the access token of a sandbox project to load its policy.');
})();
