#!/usr/bin/env python3
"""crashcheck.py: snapshots of trees and the per-path crash check of
tests/integ/t-lapply-crash.sh.

  crashcheck.py snap TREE OUT.json
      Record every entry of TREE: type, mode, uid, gid, mtime (regular
      files), SHA-1 of the content, target of symbolic links.
  crashcheck.py check OLD.json NEW.json ROOT [META-PATH...]
      Every path of OLD or NEW is, under ROOT, in its old or its new
      state; absent only if its type changes between them.  A META-PATH
      (same content and mtime, other owner or mode) may also carry the
      old owner and group with a subset of the old mode, or the new
      owner and group with a subset of the new mode.  Any other entry
      must be a temp file ("*.radmind.*"); a set-id one carries the
      owner, group and mode declared for its path.
  crashcheck.py same A.json TREE
      TREE is exactly as recorded in A.json.
  crashcheck.py sweep MAXM [META-PATH...]
      The crash sweep, driven by the environment (OLDTREE, OLDJSON,
      NEWJSON, ROOT, OUTSIDE, OUTJSON, KFILE, APPLYT, FSDIFF, LAPPLY,
      SHIM, PORT, TMP): count the mutating calls M of one run, then for
      every k in 1..M kill lapply at its kth one, check, and rerun.
      One process for the whole loop: starting an interpreter per step
      would cost more than the steps.
"""
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys

TEMP = re.compile(r'\.radmind\.[0-9]+(\.[0-9]+)?$')


def desc(p):
    s = os.lstat(p)
    m = s.st_mode
    if stat.S_ISLNK(m):
        return ['l', os.readlink(p)]
    if stat.S_ISDIR(m):
        return ['d', stat.S_IMODE(m), s.st_uid, s.st_gid]
    if stat.S_ISREG(m):
        with open(p, 'rb') as f:
            h = hashlib.sha1(f.read()).hexdigest()
        return ['f', stat.S_IMODE(m), s.st_uid, s.st_gid, int(s.st_mtime), h]
    return ['?', stat.S_IFMT(m)]


def snap(root):
    st = {'.': desc(root)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st['./' + os.path.relpath(p, root)] = desc(p)
    return st


def fmt(d):
    if d is None:
        return 'absent'
    if d[0] in 'fd':
        return '%s %04o %d:%d%s' % (d[0], d[1], d[2], d[3],
                                   ' mtime %d sha1 %s' % (d[4], d[5][:8])
                                   if d[0] == 'f' else '')
    return ' '.join(str(x) for x in d)


def meta_ok(cur, o, n):
    if cur is None or o is None or n is None or cur[0] != 'f':
        return False
    if o[0] != 'f' or n[0] != 'f' or o[4:] != n[4:] or cur[4:] != o[4:]:
        return False
    for ref in (o, n):
        if cur[2:4] == ref[2:4] and cur[1] & ~ref[1] == 0:
            return True
    return False


def check(old, new, root, meta):
    cur = snap(root)
    bad = []
    for p in sorted(set(old) | set(new)):
        c, o, n = cur.get(p), old.get(p), new.get(p)
        if c == o or c == n:
            continue
        if c is None and o is not None and n is not None and o[0] != n[0]:
            continue
        if p in meta and meta_ok(c, o, n):
            continue
        bad.append('%s: %s (old %s, new %s)' % (p, fmt(c), fmt(o), fmt(n)))
    for p in sorted(set(cur) - set(old) - set(new)):
        c = cur[p]
        if not TEMP.search(os.path.basename(p)):
            bad.append('%s: unexpected %s' % (p, fmt(c)))
            continue
        if c[0] == 'f' and c[1] & (stat.S_ISUID | stat.S_ISGID):
            base = TEMP.sub('', p)
            refs = [r for r in (old.get(base), new.get(base))
                    if r is not None and r[0] == 'f']
            if not any(c[1:4] == r[1:4] for r in refs):
                bad.append('%s: set-id temp file %s, declared %s' %
                           (p, fmt(c), ' or '.join(fmt(r) for r in refs)))
    return bad


def fsdiff_a(out):
    """fsdiff -A of $ROOT against $KFILE into the file out; None, or why
    it failed."""
    env = os.environ
    with open(out, 'wb') as f:
        r = subprocess.run([env['FSDIFF'], '-A', '-c', 'sha1', '-K',
                            env['KFILE'], '.'], cwd=env['ROOT'], stdout=f,
                           stderr=subprocess.PIPE)
    if r.returncode != 0:
        return 'fsdiff -A: %s' % r.stderr.decode(errors='replace')
    return None


def sweep(maxm, meta):
    env = os.environ
    with open(env['OLDJSON']) as f:
        old = json.load(f)
    with open(env['NEWJSON']) as f:
        new = json.load(f)
    with open(env['OUTJSON']) as f:
        outside = json.load(f)
    root, tmp = env['ROOT'], env['TMP']
    applyt, againt = env['APPLYT'], os.path.join(tmp, 'again.T')
    count = os.path.join(tmp, 'count')
    asan = env.get('ASAN_OPTIONS', '')
    asan = (asan + ':' if asan else '') + 'verify_asan_link_order=0'

    def fail(msg):
        print('FAIL: ' + msg, file=sys.stderr)
        sys.exit(1)

    def fsdiff(out):
        why = fsdiff_a(out)
        if why is not None:
            fail(why)

    def fresh():
        if os.path.lexists(root):
            shutil.rmtree(root)
        subprocess.run(['cp', '-a', env['OLDTREE'], root], check=True)
        fsdiff(applyt)

    def lapply(tr, extra):
        e = dict(env)
        e.update(extra)
        return subprocess.run([env['LAPPLY'], '-c', 'sha1', '-h',
                               '127.0.0.1', '-p', env['PORT'], tr],
                              cwd=root, env=e, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)

    def converge(label):
        fsdiff(againt)
        r = lapply(againt, {})
        if r.returncode != 0:
            fail('%s: rerun exited %d: %s' % (label, r.returncode,
                 r.stderr.decode(errors='replace')))
        left = os.path.join(tmp, 'left.T')
        fsdiff(left)
        if os.path.getsize(left) != 0:
            fail('%s: not converged: %s' % (label, open(left).read()))
        temps = [p for p in snap(root) if TEMP.search(p)]
        if temps:
            fail('%s: temp files left: %s' % (label, ' '.join(temps)))
        got = json.loads(json.dumps(snap(root)))
        if got != new:
            fail('%s: tree differs from the new one: %s' % (label, ' '.join(
                p for p in set(got) | set(new) if got.get(p) != new.get(p))))

    shim = {'LD_PRELOAD': env['SHIM'], 'ASAN_OPTIONS': asan}
    fresh()
    with open(applyt) as f:
        text = f.read()
    if '\n+ ' not in '\n' + text or '\nh ' not in '\n' + text:
        fail('the applicable transcript lacks a download or a hard link')
    r = lapply(applyt, dict(shim, CAIRN_SHIM_CRASH='0',
                            CAIRN_SHIM_COUNT=count))
    if r.returncode != 0:
        fail('counting run exited %d: %s' % (r.returncode,
             r.stderr.decode(errors='replace')))
    m = int(open(count).read())
    if m <= 0 or m > maxm:
        fail('%d mutating calls counted, expected 1..%d' % (m, maxm))
    converge('counting run')
    for k in range(1, m + 1):
        fresh()
        r = lapply(applyt, dict(shim, CAIRN_SHIM_CRASH=str(k)))
        if r.returncode != -9:
            fail('k=%d: lapply exited %d, not killed: %s' % (k, r.returncode,
                 r.stderr.decode(errors='replace')))
        bad = check(old, new, root, meta)
        if bad:
            fail('k=%d of %d: %s' % (k, m, '; '.join(bad)))
        if not os.path.islink(os.path.join(root, 'lnk')):
            fail('k=%d: the symbolic link is missing' % k)
        if json.loads(json.dumps(snap(env['OUTSIDE']))) != outside:
            fail('k=%d: something outside the root changed' % k)
        converge('k=%d' % k)
    print(m)
    return 0


def main():
    if sys.argv[1] == 'sweep':
        return sweep(int(sys.argv[2]), set(sys.argv[3:]))
    if sys.argv[1] == 'snap':
        with open(sys.argv[3], 'w') as f:
            json.dump(snap(sys.argv[2]), f, sort_keys=True)
        return 0
    if sys.argv[1] == 'same':
        with open(sys.argv[2]) as f:
            want = json.load(f)
        got = json.loads(json.dumps(snap(sys.argv[3])))
        if got != want:
            for p in sorted(set(want) | set(got)):
                if want.get(p) != got.get(p):
                    print('%s: %s, was %s' % (p, fmt(got.get(p)),
                                              fmt(want.get(p))))
            return 1
        return 0
    with open(sys.argv[2]) as f:
        old = json.load(f)
    with open(sys.argv[3]) as f:
        new = json.load(f)
    bad = check(old, new, sys.argv[4], set(sys.argv[5:]))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
