#!/usr/bin/env python3
"""Builds idna-test-v2.jsonl from Unicode's IdnaTestV2.txt: every distinct source, as the domain of
a@..., judged by python-email-validator (see README.md). Needs email-validator and idna installed:

    python3 -m venv /tmp/ev && /tmp/ev/bin/pip install email-validator==2.3.0 idna==3.20
    /tmp/ev/bin/python plugins/structure/reference/build-idna-test-v2.py PATH/IdnaTestV2.txt > plugins/structure/reference/idna-test-v2.jsonl
"""
import json
import re
import sys

import email_validator
import idna
from email_validator import EmailSyntaxError, validate_email


def unescape(text):
    text = re.sub(r'\\x\{([0-9A-Fa-f]+)\}', lambda m: chr(int(m.group(1), 16)), text)
    return re.sub(r'\\u([0-9A-Fa-f]{4})', lambda m: chr(int(m.group(1), 16)), text)


def main(path):
    header = open(path, encoding='utf-8').read(400)
    version = re.search(r'# Version: (\S+)', header).group(1)
    date = re.search(r'# Date: (\d{4}-\d\d-\d\d)', header).group(1)
    print(json.dumps({
        'suite': f'Unicode IdnaTestV2.txt {version} (UTS #46 conformance), each source as the domain of a@…',
        'source': f'IdnaTestV2.txt, Unicode {version}, {date}',
        'license': 'Unicode-DFS-2016',
        'reference': f'email-validator {email_validator.__version__} with idna {idna.__version__}: '
                     'validate_email("a@" + domain, check_deliverability=False, strict=True)',
        'columns': ['domain', 'valid', 'ascii_domain when valid, else the reference error',
                    'UTS #46 toAsciiN status in the file (ok, or its codes)'],
    }, ensure_ascii=False))
    seen = set()
    for line in open(path, encoding='utf-8'):
        line = line.split('#', 1)[0].rstrip('\n')
        if not line.strip():
            continue
        cols = [c.strip() for c in line.split(';')]
        source, unicode_status, ascii_status = unescape(cols[0]), cols[2], cols[4]
        if source in seen:
            continue
        seen.add(source)
        status = ascii_status or unicode_status
        try:
            answer = [True, validate_email('a@' + source, check_deliverability=False, strict=True).ascii_domain]
        except EmailSyntaxError as error:
            answer = [False, str(error)]
        print(json.dumps([source, *answer, 'ok' if status in ('', '[]') else status.strip('[]')], ensure_ascii=False))


if __name__ == '__main__':
    main(sys.argv[1])
