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

import cgrep

HOME = 'core/util/'
# Files allowed to call realloc( outside core/util/: none (issue #41 item 6
# moved every one to pt_vec.h).  A line here must name a file that still
# calls it.
ALLOW = []
CALL = re.compile(r'\brealloc\s*\(')


def calls(text):
    """The line numbers of the realloc( calls in one file's text (naming it
    in a comment or a string is fine)."""
    return cgrep.find_lines(cgrep.strip(text, strings=True), CALL)


def scan(srcdir):
    """{file: [lines]} of the C files outside core/util/ that call realloc(."""
    found = {}
    for rel, text in cgrep.c_files(srcdir, HOME):
        at = calls(text)
        if at:
            found[rel] = at
    return found


def check(found, allow):
    over, paid = cgrep.over_and_paid({f: len(at) for f, at in found.items()},
                                     dict.fromkeys(allow))
    errs = ['%s: realloc( at line %s: grow the array through pt_vec.h '
            '(pt_vec_reserve, pt_vec_resize)' % (f, ', '.join(map(str, found[f])))
            for f, _c, _w in over]
    errs += ['check_realloc.py ALLOW: %s has no realloc( left: paid, delete its line' % f
             for f, _c, _w in paid]
    return errs


def main(argv):
    srcdir = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = scan(srcdir)
    rep = cgrep.Report()
    case = rep.case

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
    return rep.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
