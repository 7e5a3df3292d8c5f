"""cgrep.py — what the greps of ptfs's own C code share (check_realloc.py,
check_decode.py): the C files of core/, fs/ and cli/ with a folder left out,
their text with comments (and string literals) blanked, the lines a pattern
is found on, the allow-list that may only shrink, and the `ok - ` /
`not ok - ` report with its `N passed, M failed` line.

Not a test on its own; the checks import it from their own folder.
"""
import os
import re

FOLDERS = ('core', 'fs', 'cli')
_COMMENT = r'/\*.*?\*/|//[^\n]*'
_STRING = r'"(?:\\.|[^"\\\n])*"'


def strip(text, strings=False):
    """TEXT with its comments (and, if STRINGS, its string literals) blanked,
    newlines kept so line numbers still hold."""
    rx = _COMMENT + ('|' + _STRING if strings else '')
    return re.sub(rx, lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text, flags=re.S)


def find_lines(code, rx):
    """The line numbers (from 1) of each match of RX in CODE."""
    return [code.count('\n', 0, m.start()) + 1 for m in re.finditer(rx, code)]


def c_files(srcdir, skip, folders=FOLDERS):
    """(path relative to SRCDIR, text) of each .c and .h file under FOLDERS,
    in a fixed order, those under the prefix SKIP left out."""
    for top in folders:
        for dirpath, dirs, files in os.walk(os.path.join(srcdir, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), srcdir).replace(os.sep, '/')
                if rel.startswith(skip):
                    continue
                with open(os.path.join(dirpath, f), encoding='utf-8', errors='replace') as fh:
                    yield rel, fh.read()


def over_and_paid(found, allow):
    """An allow-list that only shrinks.  FOUND: {key: count}; ALLOW:
    {key: count, or None for any number}, in its list's order.  Returns
    (over, paid): over, sorted by key, [(key, found, allowed)] where more is
    found than allowed (an unlisted key allows 0); paid, in ALLOW's order,
    [(key, found, allowed)] where less is found than allowed (None: when
    none is found)."""
    over, paid = [], []
    for key, c in sorted(found.items()):
        want = allow.get(key, 0)
        if want is not None and c > want:
            over.append((key, c, want))
    for key, want in allow.items():
        c = found.get(key, 0)
        if (c == 0) if want is None else (c < want):
            paid.append((key, c, want))
    return over, paid


class Report:
    """Prints `ok - WHAT` or `not ok - WHAT: DETAIL` per case, then the sums."""

    def __init__(self):
        self.passed = self.failed = 0

    def case(self, cond, what, detail=''):
        if cond:
            self.passed += 1
            print('ok - ' + what)
        else:
            self.failed += 1
            print('not ok - ' + what + (': ' + detail if detail else ''))

    def done(self):
        """Prints `N passed, M failed`; the exit status (1 on any failure)."""
        print('%d passed, %d failed' % (self.passed, self.failed))
        return 1 if self.failed else 0
