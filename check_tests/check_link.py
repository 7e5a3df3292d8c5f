#!/usr/bin/env python3
"""check_link.py — the layer rule of HACKING.md ("Layers") checked at the link.

check_layers.sh proves a lower layer cannot *include* a higher layer's
header; this proves it does not *call* one either: for each object of core/
(found through the build's compile_commands.json), `nm` lists its undefined
symbols, and none may be defined by an object of a higher layer.

No up-call is allowed: the debt list check_tests/layer_debt.txt (one line
each: SYMBOL CALLER CALLEE-LAYER WHY) was paid by issue #41 item 3 and
stays empty, its header only.  The check fails on

  - any up-call, listed or not (pass what the lower layer needs down
    through its arguments or hooks instead);
  - any line in the debt list (a listed up-call is still one; a line whose
    up-call is gone is named as paid: delete it);
  - a folder of core/ that is not in LAYERS below (add it, in its place);
  - an object compiled without its folder's -DPT_LAYER_<FOLDER>;
  - LAYERS and the table of layers in HACKING.md in different orders.

Before the real check it proves it can fail: it compiles a probe object as
the lowest layer calling a symbol of the highest, and checks that the
up-call, and each of the other findings above, is reported.

    check_link.py SRCDIR BUILDDIR CC [CC ARGS...]

$NM names the nm to use (default nm).  Prints one line per case and
`N passed, M failed`; exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from cgrep import Report   # the ok / not ok lines and sums every check here prints

# core's layers, bottom up (HACKING.md, "Layers"): a layer may call only the
# layers before it in this list.  One line per folder; a new folder of core/
# goes here in its place, or the check fails.  `linux` (the Linux kernel's
# structures read from a dump) sits above the walker it uses and below the
# view that shows it.
LAYERS = [
    'util',
    'formats',
    'load',
    'sources',
    'walk',
    'linux',
    'view',
]
# Folders of core/ that are not layers and hold no objects.
NOT_LAYERS = {'include'}
# Where the programs' objects are: not layers, used by measure_shape.py.
PROGRAMS = ['fs', 'cli']


def rank(layer):
    return LAYERS.index(layer)


def read_objects(srcdir, builddir, tops=('core',)):
    """[(source path relative to srcdir, folder, object path)] of the
    sources under the folders TOPS, one object per source (the programs'
    own, not a test's copy), from BUILDDIR/compile_commands.json; and the
    commands, by source."""
    path = os.path.join(builddir, 'compile_commands.json')
    try:
        with open(path, encoding='utf-8') as f:
            cmds = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit('check_link.py: %s: %s (configure the build first)' % (path, e))
    srcdir = os.path.realpath(srcdir)
    objs, seen, commands = [], set(), {}
    for e in cmds:
        src = os.path.realpath(os.path.join(e['directory'], e['file']))
        rel = os.path.relpath(src, srcdir)
        parts = rel.split(os.sep)
        if len(parts) < 2 or parts[0] not in tops or rel in seen:
            continue
        out = e.get('output') or ''
        if not out.replace(os.sep, '/').startswith(parts[0] + '/'):
            continue    # a test's or a fuzzer's own copy, not the layer's object
        seen.add(rel)
        folder = parts[1] if parts[0] == 'core' else parts[0]
        objs.append((rel, folder, os.path.join(e['directory'], out)))
        commands[rel] = e.get('command', ' '.join(e.get('arguments', [])))
    return sorted(objs), commands


def nm_many(paths):
    """{object: ({defined external symbol: nm type letter}, {undefined symbols})}
    of the objects PATHS, through one nm."""
    out = {p: ({}, set()) for p in paths}
    try:
        r = subprocess.run([os.environ.get('NM') or 'nm', '-P', '-A'] + list(paths),
                           capture_output=True, text=True, check=False)
    except OSError as e:
        raise SystemExit('check_link.py: nm: %s' % e)
    if r.returncode != 0:
        raise SystemExit('check_link.py: nm: %s (build first)' % r.stderr.strip()[:400])
    for line in r.stdout.splitlines():
        obj, _, rest = line.rpartition(': ')
        p = rest.split()
        if obj not in out or len(p) < 2:
            continue
        defs, undef = out[obj]
        if p[1] == 'U':
            undef.add(p[0])
        elif p[1] in ('w', 'v'):
            continue
        elif p[1].isupper():
            defs[p[0]] = p[1]
    return out


def nm_symbols(obj):
    """({defined external symbol: nm type letter}, {undefined symbols}) of one object."""
    return nm_many([obj])[obj]


def symbol_table(objs):
    """{source: (defs, undefs)} and {symbol: source defining it}."""
    got = nm_many(sorted({obj for _rel, _folder, obj in objs}))
    syms, where = {}, {}
    for rel, _folder, obj in objs:
        syms[rel] = got[obj]
        for s in sorted(syms[rel][0]):
            where.setdefault(s, rel)
    return syms, where


def folder_of(rel):
    p = rel.split('/')
    return p[1] if p[0] == 'core' else p[0]


def up_calls(objs, syms, where):
    """Sorted [(symbol, caller source, callee layer, callee source)] of every
    call from a core object to a symbol a higher layer defines."""
    out = []
    for rel, folder, _obj in objs:
        if folder not in LAYERS:
            continue
        for s in sorted(syms[rel][1]):
            callee = where.get(s)
            if callee is None or not callee.startswith('core/'):
                continue
            cl = folder_of(callee)
            if cl in LAYERS and rank(cl) > rank(folder):
                out.append((s, rel, cl, callee))
    return sorted(out)


def read_debt(path):
    """[(line number, symbol, caller, callee layer)] of the debt list."""
    debt = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            p = line.split(None, 3)
            if len(p) < 4:
                raise SystemExit('%s:%d: want SYMBOL CALLER CALLEE-LAYER WHY' % (path, n))
            debt.append((n, p[0], p[1], p[2]))
    return debt


def unknown_folders(srcdir, objs):
    """Folders of core/ (in the tree or among the objects) not in LAYERS."""
    bad = set()
    core = os.path.join(srcdir, 'core')
    for d in sorted(os.listdir(core)):
        full = os.path.join(core, d)
        if not os.path.isdir(full) or d in LAYERS:
            continue
        if d not in NOT_LAYERS or any(n.endswith('.c') for n in os.listdir(full)):
            bad.add(d)
    for rel, folder, _obj in objs:
        if rel.startswith('core/') and folder not in LAYERS:
            bad.add(folder)
    return sorted(bad)


def hacking_order(srcdir):
    """The layers in the order of HACKING.md's table ("Layers"): its rows
    | `core/X/` | ..., the public headers left out."""
    with open(os.path.join(srcdir, 'HACKING.md'), encoding='utf-8') as f:
        rows = re.findall(r'^\| `core/(\w+)/` \|', f.read(), flags=re.M)
    return [r for r in rows if r not in NOT_LAYERS]


def check(srcdir, objs, commands, syms, where, debt, debt_name):
    """The findings, one line each; empty when the link keeps the layers."""
    errs = []
    table = hacking_order(srcdir)
    here = [d for d in LAYERS if d in table]
    if table != here:
        errs.append('HACKING.md\'s table of layers reads %s, LAYERS in check_tests/check_link.py '
                    '%s: one order for both' % (' < '.join(table), ' < '.join(here)))
    for d in unknown_folders(srcdir, objs):
        errs.append('core/%s/: a folder check_tests/check_link.py does not know: add it to '
                    'LAYERS in its place (HACKING.md, "Layers")' % d)
    for rel, folder, _obj in objs:
        if folder in LAYERS and rel in commands and \
                not re.search(r'-DPT_LAYER_%s\b' % folder.upper(), commands[rel]):
            errs.append('%s: compiled without -DPT_LAYER_%s (core/meson.build, core_layers)'
                        % (rel, folder.upper()))
    calls = up_calls(objs, syms, where)
    for s, caller, layer, callee in calls:
        errs.append('%s calls %s, defined by %s: layer %s calls up into %s; pass it down '
                    'through arguments or hooks (HACKING.md, "Layers")'
                    % (caller, s, callee, folder_of(caller), layer))
    # The list is paid (issue #41 item 3): a line is no longer a way to pass.
    found = {(s, c, l) for s, c, l, _ in calls}
    for n, s, c, l in debt:
        if (s, c, l) not in found:
            errs.append('%s:%d: %s no longer calls %s in %s: paid, delete this line'
                        % (debt_name, n, c, s, l))
        else:
            errs.append('%s:%d: %s calls %s in %s: the list stays empty (no up-call is '
                        'debt any more); pass it down instead and delete this line'
                        % (debt_name, n, c, s, l))
    return errs


def probes(cases, srcdir, cc, objs, commands, syms, where, debt, debt_name):
    """The check fails when it should: an injected up-call, a stale debt
    line, an unknown folder."""
    global LAYERS
    low, high = LAYERS[0], None
    for layer in reversed(LAYERS):
        names = sorted(s for rel, f, _o in objs if f == layer for s in syms[rel][0]
                       if s.startswith('pt_'))
        if names:
            high, target = layer, names[0]
            break
    if high is None:
        cases.case(False, 'probe: a symbol of the highest layer to call', 'no pt_ symbol defined')
        return
    with tempfile.TemporaryDirectory(prefix='ptfs-link.') as tmp:
        src, obj = os.path.join(tmp, 'probe.c'), os.path.join(tmp, 'probe.o')
        with open(src, 'w', encoding='utf-8') as f:
            f.write('extern void %s(void);\nvoid pt_link_probe(void);\n'
                    'void pt_link_probe(void) { %s(); }\n' % (target, target))
        r = subprocess.run(cc + ['-std=c11', '-DPT_LAYER_%s' % low.upper(), '-c', src, '-o', obj],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            cases.case(False, 'probe compiles', r.stderr[:400])
            return
        probe = 'core/%s/pt_link_probe.c' % low
        objs2 = objs + [(probe, low, obj)]
        cmds2 = dict(commands)
        cmds2[probe] = '-DPT_LAYER_%s' % low.upper()
        syms2 = dict(syms)
        syms2[probe] = nm_symbols(obj)
        errs = check(srcdir, objs2, cmds2, syms2, where, debt, debt_name)
        hit = [e for e in errs if e.startswith(probe + ' calls ' + target + ',')]
        cases.case(len(hit) == 1, 'probe: %s object calling %s (%s) is reported as an up-call'
                 % (low, target, high), '; '.join(errs)[:400])
        # the same call, listed as debt, still fails: the list is paid and stays empty
        debt2 = debt + [(0, target, probe, high)]
        errs = check(srcdir, objs2, cmds2, syms2, where, debt2, debt_name)
        cases.case(any(e.startswith(probe + ' calls ' + target + ',') for e in errs) and
                 any(e.startswith('%s:0: ' % debt_name) and 'stays empty' in e for e in errs),
                 'probe: the same call listed in the debt file still fails, and so does its line',
                 '; '.join(errs)[:400])
        # compiled as the wrong layer
        cmds2[probe] = '-DPT_LAYER_%s' % high.upper()
        errs = check(srcdir, objs2, cmds2, syms2, where, debt2, debt_name)
        cases.case(any(e.startswith(probe + ': compiled without') for e in errs),
                 'probe: an object compiled without its folder\'s -DPT_LAYER_ is reported')
    # LAYERS and HACKING.md's table in different orders
    keep = LAYERS
    LAYERS = [keep[1], keep[0]] + keep[2:]
    try:
        errs = check(srcdir, objs, commands, syms, where, debt, debt_name)
    finally:
        LAYERS = keep
    cases.case(any(e.startswith("HACKING.md's table of layers reads") for e in errs),
             'probe: LAYERS in another order than HACKING.md\'s table is reported')
    # a debt line whose up-call is gone
    stale = debt + [(999, 'pt_link_gone', 'core/%s/pt_link_probe.c' % low, LAYERS[-1])]
    errs = check(srcdir, objs, commands, syms, where, stale, debt_name)
    cases.case(any(e.startswith('%s:999:' % debt_name) and 'delete this line' in e for e in errs),
             'probe: a debt line whose up-call is gone is reported (delete it)')
    # an object in a folder the table does not know
    odd = objs + [('core/pt_link_nowhere/x.c', 'pt_link_nowhere', objs[0][2])]
    syms3 = dict(syms)
    syms3['core/pt_link_nowhere/x.c'] = ({}, set())
    errs = check(srcdir, odd, commands, syms3, where, debt, debt_name)
    cases.case(any(e.startswith('core/pt_link_nowhere/:') for e in errs),
             'probe: an object in a folder not in LAYERS fails loudly')


def main(argv):
    if len(argv) < 4:
        print('usage: check_link.py SRCDIR BUILDDIR CC [CC ARGS...]', file=sys.stderr)
        return 2
    srcdir, builddir, cc = argv[1], argv[2], argv[3:]
    debt_path = os.path.join(srcdir, 'check_tests', 'layer_debt.txt')
    debt_name = 'check_tests/layer_debt.txt'
    objs, commands = read_objects(srcdir, builddir)
    if not objs:
        print('check_link.py: no core object in %s/compile_commands.json' % builddir,
              file=sys.stderr)
        return 2
    syms, where = symbol_table(objs)
    debt = read_debt(debt_path)
    cases = Report()
    probes(cases, srcdir, cc, objs, commands, syms, where, debt, debt_name)
    errs = check(srcdir, objs, commands, syms, where, debt, debt_name)
    for e in errs:
        cases.case(False, e)
    if not errs:
        cases.case(True, '%d core objects: no up-call, %s empty' % (len(objs), debt_name))
    return cases.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
