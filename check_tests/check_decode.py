#!/usr/bin/env python3
"""check_decode.py — IOMMU and page-table entries are decoded in core/formats/.

A file outside core/formats/ that takes a field out of a raw entry or
register word by shift-and-mask restates a layout the format (or ioent.c's
named fields) already owns (HACKING.md, "Layers"; issue #41 item 1).  This
greps the C files of core/, fs/ and cli/ outside core/formats/ for the
patterns in PATTERNS below and compares the counts per file and pattern
with check_tests/decode_debt.txt (one line each: FILE PATTERN COUNT WHY).
It fails on

  - an occurrence the list does not hold (a new file, or more than its
    count): decode through core/formats/ instead;
  - a line whose count is higher than what is found, or whose file or
    pattern has none left (paid debt: lower the count or delete the line,
    so the list only shrinks);
  - a line naming a pattern this script does not have.

Patterns may overlap (an STE Config decode is also an entry field): each
counts on its own.  Before the real check it proves it can fail, on
injected text.

    check_decode.py SRCDIR

Prints one line per case and `N passed, M failed`; exits 1 on any failure.
"""
import os
import sys

import cgrep

# A raw word of an IOMMU table entry as the code names it today: q0..q3
# (AMD-Vi DTE quadwords, VT-d entries), w0.., s0.. (SMMUv3 STE/CD words),
# x.w[N] / x->w[N] (struct pt_ioent_words).
_WORD = r'(?:[\w.>-]*\bw\[\d+\]|\b[qws]\d)'
PATTERNS = {
    # AMD-Vi DTE Mode -> pages of the table: 1ull << (((q0 >> 9) & 7) + 7)
    'dte-mode-pages': r'1ull\s*<<\s*\(\s*\(\s*\(\s*[\w.>\[\]-]+\s*>>\s*9\s*\)\s*&\s*7\s*\)\s*\+\s*7\s*\)',
    # SMMUv3 STE Config, bits [3:1] of word 0: (w0 >> 1) & 7
    'ste-config': r'\(\s*' + _WORD + r'\s*>>\s*1\s*\)\s*&\s*7\b',
    # any field of a raw entry word by shift-and-mask: (q0 >> N) & M
    'entry-field': r'\(\s*' + _WORD + r'\s*>>\s*\d+\s*\)\s*&',
    # a field of a raw entry word by mask: q0 & MASK(H, L)
    'entry-mask': _WORD + r'\s*&\s*MASK\s*\(',
    # a field of an IOMMU register by shift-and-mask: (io->v[PT_IK_X] >> N) & M
    'iommu-reg-field': r'v\[PT_IK_\w+\]\s*>>\s*\d+\s*\)\s*&',
}
ALLOWED = 'core/formats/'
DEBT = 'check_tests/decode_debt.txt'


def lines(text):
    """{pattern: [line of each occurrence]} in one file's text (a layout
    described in a comment is fine)."""
    code = cgrep.strip(text)
    out = {}
    for name, rx in PATTERNS.items():
        at = cgrep.find_lines(code, rx)
        if at:
            out[name] = at
    return out


def count(text):
    """{pattern: occurrences} in one file's text."""
    return {name: len(at) for name, at in lines(text).items()}


def scan(srcdir):
    """{(file, pattern): count} over the C files outside core/formats/, and
    {(file, pattern): lines}."""
    found, at = {}, {}
    for rel, text in cgrep.c_files(srcdir, ALLOWED):
        for name, ls in lines(text).items():
            found[(rel, name)] = len(ls)
            at[(rel, name)] = ls
    return found, at


def read_debt(path):
    """[(line number, file, pattern, count)]."""
    debt = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            p = line.split(None, 3)
            if len(p) < 4 or not p[2].isdigit():
                raise SystemExit('%s:%d: want FILE PATTERN COUNT WHY' % (path, n))
            debt.append((n, p[0], p[1], int(p[2])))
    return debt


def check(found, debt, debt_name, at=None):
    errs = []
    listed = {}
    for n, f, pat, c in debt:
        if pat not in PATTERNS:
            errs.append('%s:%d: no pattern %s in check_tests/check_decode.py' % (debt_name, n, pat))
        listed[(f, pat)] = (n, c)
    order = sorted(listed.items(), key=lambda x: x[1][0])
    over, paid = cgrep.over_and_paid(found, {k: c for k, (n, c) in order})
    for (f, pat), c, want in over:
        where = (at or {}).get((f, pat))
        errs.append('%s: %d %s decode(s) of a raw word outside core/formats/ (%d listed '
                    'in %s%s): decode through core/formats/ (HACKING.md, "Layers")'
                    % (f, c, pat, want, debt_name,
                       '; lines ' + ', '.join(map(str, where)) if where else ''))
    for (f, pat), c, want in paid:
        what = 'delete this line' if c == 0 else 'lower the count to %d' % c
        errs.append('%s:%d: %s has %d %s, not %d: paid, %s'
                    % (debt_name, listed[(f, pat)][0], f, c, pat, want, what))
    return errs


def main(argv):
    srcdir = argv[1] if len(argv) > 1 else os.environ.get(
        'PTFS_SRCDIR', os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    debt = read_debt(os.path.join(srcdir, DEBT))
    found, at = scan(srcdir)
    rep = cgrep.Report()
    case = rep.case

    # the check fails when it should, on injected text
    probe = 'core/walk/pt_decode_probe.c'
    text = ('static unsigned f(unsigned long long q0, const struct pt_ioent_words *ste)\n'
            '{ /* (w0 >> 1) & 7 in a comment does not count */\n'
            '\treturn ((ste->w[0] >> 1) & 7) + (unsigned)(1ull << (((q0 >> 9) & 7) + 7)); }\n')
    got = count(text)
    case(got == {'ste-config': 1, 'dte-mode-pages': 1, 'entry-field': 2},
         'probe: the patterns find the STE Config and DTE Mode decodes, not a comment', str(got))
    more = dict(found)
    for pat, c in got.items():
        more[(probe, pat)] = c
    errs = check(more, debt, DEBT)
    case(any(e.startswith(probe + ': 1 ste-config') for e in errs),
         'probe: a new file decoding an STE by hand is reported', '; '.join(errs)[:400])
    if debt:
        n, f, pat, c = debt[0]
        errs = check(dict(found, **{}), [(n, f, pat, c + 1)] + debt[1:], DEBT)
        case(any(e.startswith('%s:%d:' % (DEBT, n)) and 'lower the count' in e for e in errs),
             'probe: a debt count higher than found is reported (lower it)', '; '.join(errs)[:400])
        less = dict(found)
        less[(f, pat)] = c + 1
        errs = check(less, debt, DEBT)
        case(any(e.startswith(f + ': %d %s' % (c + 1, pat)) for e in errs),
             'probe: one more occurrence in a listed file is reported')
    errs = check(found, debt + [(999, 'core/walk/gone.c', 'entry-field', 1)], DEBT)
    case(any(e.startswith(DEBT + ':999:') and 'delete this line' in e for e in errs),
         'probe: a debt line with nothing left is reported (delete it)')
    errs = check(found, debt, DEBT, at)
    for e in errs:
        case(False, e)
    if not errs:
        case(True, '%d decodes in %d files outside core/formats/, all listed in %s'
             % (sum(found.values()), len({f for f, _ in found}), DEBT))
    return rep.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
