#!/usr/bin/env python3
"""check_realloc.py — growable arrays grow through core/include/pt_vec.h.

pt_vec_reserve() (doubling) and pt_vec_resize() (an exact size) write the
overflow checks and the keep-on-failure rule once (issue #41 item 6), so a
call of realloc( belongs in core/util/ only.  This greps the C files of
core/, fs/ and cli/ (comments aside) and fails on

  - realloc( in a file outside core/util/ that ALLOW below does not name:
    grow through pt_vec.h instead;
  - a file of ALLOW that has no realloc( left (paid: delete its line, so
    the list only shrinks).

Before the real check it proves it can fail, on injected text.

    check_realloc.py SRCDIR

Prints one line per case and `N passed, M failed`; exits 1 on any failure.
"""
import os
import re
import sys

FOLDERS = ('core', 'fs', 'cli')
HOME = 'core/util/'
# Files allowed to call realloc( outside core/util/: none (issue #41 item 6
# moved every one to pt_vec.h).  A line here must name a file that still
# calls it.
ALLOW = []
CALL = re.compile(r'\brealloc\s*\(')


def _strip(text):
    """The text without comments and string literals (naming realloc there is fine)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', ' ', text, flags=re.S)


def calls(text):
    """The line numbers of the realloc( calls in one file's text."""
    code = _strip(text)
    return [code.count('\n', 0, m.start()) + 1 for m in CALL.finditer(code)]


def scan(srcdir):
    """{file: [lines]} of the C files outside core/util/ that call realloc(."""
    found = {}
    for top in FOLDERS:
        for dirpath, dirs, files in os.walk(os.path.join(srcdir, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), srcdir).replace(os.sep, '/')
                if rel.startswith(HOME):
                    continue
                with open(os.path.join(dirpath, f), encoding='utf-8', errors='replace') as fh:
                    at = calls(fh.read())
                if at:
                    found[rel] = at
    return found


def check(found, allow):
    errs = []
    for f, at in sorted(found.items()):
        if f not in allow:
            errs.append('%s: realloc( at line %s: grow the array through pt_vec.h '
                        '(pt_vec_reserve, pt_vec_resize)' % (f, ', '.join(map(str, at))))
    for f in allow:
        if f not in found:
            errs.append('check_realloc.py ALLOW: %s has no realloc( left: paid, delete its line' % f)
    return errs


def main(argv):
    srcdir = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = scan(srcdir)
    passed = failed = 0

    def case(cond, what, detail=''):
        nonlocal passed, failed
        if cond:
            passed += 1
            print('ok - ' + what)
        else:
            failed += 1
            print('not ok - ' + what + (': ' + detail if detail else ''))

    # the check fails when it should, on injected text
    text = ('/* realloc(p, n) in a comment */\nstatic const char *s = "realloc(";\n'
            'static void *f(void *p) { return realloc (p, 8); }\n')
    case(calls(text) == [3], 'probe: a call is found, a comment and a string are not', str(calls(text)))
    errs = check(dict(found, **{'core/walk/probe.c': [3]}), ALLOW)
    case(any(e.startswith('core/walk/probe.c: realloc( at line 3') for e in errs),
         'probe: realloc( in a new file outside core/util/ is reported')
    errs = check(found, ALLOW + ['core/walk/gone.c'])
    case(any('core/walk/gone.c has no realloc( left' in e for e in errs),
         'probe: an allowed file with no realloc( left is reported (delete its line)')
    errs = check(found, ALLOW)
    for e in errs:
        case(False, e)
    if not errs:
        case(True, 'realloc( outside core/util/ only in the %d allowed file(s)' % len(found))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
