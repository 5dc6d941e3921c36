#!/usr/bin/env python3
"""sigcheck.py: interrupt a client at many points of a run and check
what it leaves (tests/integ/t-lapply-signals.sh, t-client-signals.sh).

The interruption points are the client's own mutating file-system calls,
counted by tests/integ/shim.so: for a point k the shim runs, just before
the kth such call, "kill -SIG <client pid>" and waits for it, and the
client goes on; its signal thread acts whenever it runs.  The client is
started with SIGINT, SIGTERM and SIGHUP at their default action (a shell
starts a background job with SIGINT ignored, which the client keeps).

  sigcheck.py lapply POINTS JOBS
      Environment: OLDTREE, OLDJSON, NEWJSON, ROOT, KFILE, APPLYT,
      FSDIFF, LAPPLY, SHIM, PORT, TMP.  Count the mutating calls M of one
      run of lapply -j JOBS on a fresh copy of the old tree, then for
      POINTS points spread over 1..M (the signals SIGINT, SIGTERM, SIGHUP
      in turn): lapply must die of the signal, leave no temp file
      (nothing that is not a path of the old or new tree), every path in
      its old or new state (absent only where its type changes), and
      fsdiff -A then lapply must bring the tree to the new one.
      Prints M and the number of points.
  sigcheck.py ktcheck POINTS
      Environment: KDIR (the command directory), OLDK, OLDJSON, NEWJSON,
      KTCHECK, SHIM, PORT, TMP.  The same for ktcheck -c sha1 -K
      KDIR/base.K over a copy of OLDK (a command directory) brought to
      NEWJSON.
  sigcheck.py replicate POINTS
      Environment: REPLICA, OLDREP, OLDJSON, NEWJSON, REPLICATE, SHIM,
      PORT, TMP.  The same for cairn-replicate -D REPLICA over a copy of
      OLDREP; checked are command/, transcript/ and file/ (tmp/ is its
      stage, kept between runs by design), file mtimes left out (a
      fetched file has the time it came); the rerun must exit 1 or 0
      and bring them to NEWJSON.
  sigcheck.py runat NAME:K SIG CMD...
      Run CMD with the shim, SIG sent before its Kth call of NAME (a
      function the shim wraps, or "mutate"); exit with its status as a
      shell reports it (128 + N if killed).
"""
import json
import os
import shutil
import signal
import subprocess
import sys

from crashcheck import TEMP, check, fmt, fsdiff_a, snap

SIGS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
NAMES = {signal.SIGINT: 'INT', signal.SIGTERM: 'TERM', signal.SIGHUP: 'HUP'}


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def default_signals():
    for s in SIGS:
        signal.signal(s, signal.SIG_DFL)


def shim_env(extra):
    e = dict(os.environ)
    asan = e.get('ASAN_OPTIONS', '')
    e['ASAN_OPTIONS'] = (asan + ':' if asan else '') + \
        'verify_asan_link_order=0'
    e['LD_PRELOAD'] = e['SHIM']
    e.update(extra)
    return e


def run(cmd, cwd=None, extra=None, shim=True):
    """Run cmd (120 s at most); its CompletedProcess."""
    env = shim_env(extra or {}) if shim else dict(os.environ)
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120,
                              preexec_fn=default_signals)
    except subprocess.TimeoutExpired:
        fail('%s: still running after 120 s' % ' '.join(cmd))


def err(r):
    return r.stderr.decode(errors='replace').strip()


def count(cmd, cwd, tmp):
    """The mutating calls of one run of cmd."""
    cfile = os.path.join(tmp, 'count')
    r = run(cmd, cwd, {'CAIRN_SHIM_CRASH': '0', 'CAIRN_SHIM_COUNT': cfile})
    if r.returncode not in (0, 1):
        fail('counting run exited %d: %s' % (r.returncode, err(r)))
    with open(cfile) as f:
        return int(f.read())


def points(m, n):
    """n points spread over 1..m (fewer if m is smaller)."""
    if n <= 1 or m <= 1:
        return [1]
    return sorted(set(1 + (i * (m - 1)) // (n - 1) for i in range(n)))


def interrupt(cmd, cwd, sig, k, name='mutate'):
    """Run cmd with sig sent before its kth call of name."""
    r = run(cmd, cwd, {'CAIRN_SHIM_STOP': '%s:%d' % (name, k),
                       'CAIRN_SHIM_STOPEXE': os.path.basename(cmd[0]),
                       'CAIRN_SHIM_RUN': 'kill -%s $PPID' % NAMES[sig]})
    return r


def status(r):
    return 128 - r.returncode if r.returncode < 0 else r.returncode


def temps(tree):
    return sorted(p for p in snap(tree) if TEMP.search(p) or
                  '.radmind.' in p)


def load(name):
    with open(os.environ[name]) as f:
        return json.load(f)


def fresh(src, dst):
    if os.path.lexists(dst):
        shutil.rmtree(dst)
    subprocess.run(['cp', '-a', src, dst], check=True)


def sweep(label, npoints, m, one, verify):
    """one(sig, k) runs an interrupted run; verify(label) checks after."""
    ks = points(m, npoints)
    for i, k in enumerate(ks):
        sig = SIGS[i % len(SIGS)]
        lab = '%s k=%d/%d SIG%s' % (label, k, m, NAMES[sig])
        r = one(sig, k)
        if r.returncode != -sig:
            fail('%s: exit status %d, not killed by the signal: %s' %
                 (lab, status(r), err(r)))
        verify(lab)
    return len(ks)


def lapply_main(npoints, jobs):
    env = os.environ
    old, new = load('OLDJSON'), load('NEWJSON')
    root, tmp = env['ROOT'], env['TMP']
    applyt = env['APPLYT']

    def fsdiff(out):
        why = fsdiff_a(out)
        if why is not None:
            fail(why)

    def cmd(tr):
        return [env['LAPPLY'], '-j', str(jobs), '-c', 'sha1', '-h',
                '127.0.0.1', '-p', env['PORT'], tr]

    def start():
        fresh(env['OLDTREE'], root)
        fsdiff(applyt)

    def converge(label):
        again = os.path.join(tmp, 'again.T')
        fsdiff(again)
        r = run(cmd(again), root, shim=False)
        if r.returncode != 0:
            fail('%s: rerun exited %d: %s' % (label, status(r), err(r)))
        got = json.loads(json.dumps(snap(root)))
        if got != new:
            fail('%s: after the rerun, differs from the new tree: %s' % (
                label, ' '.join(sorted(p for p in set(got) | set(new)
                                       if got.get(p) != new.get(p)))))

    def one(sig, k):
        start()
        return interrupt(cmd(applyt), root, sig, k)

    def verify(label):
        left = temps(root)
        if left:
            fail('%s: temp files left: %s' % (label, ' '.join(left)))
        bad = check(old, new, root, set())
        if bad:
            fail('%s: %s' % (label, '; '.join(bad)))
        converge(label)

    start()
    m = count(cmd(applyt), root, tmp)
    if m < 50:
        fail('only %d mutating calls counted' % m)
    converge('counting run')
    n = sweep('-j %d' % jobs, npoints, m, one, verify)
    print('%d %d' % (m, n))
    return 0


def dir_main(npoints, what):
    """ktcheck over a command directory, cairn-replicate over a replica."""
    env = os.environ
    old, new = load('OLDJSON'), load('NEWJSON')
    tmp = env['TMP']
    if what == 'ktcheck':
        top, src = env['KDIR'], env['OLDK']
        parts = ['']
        cmd = [env['KTCHECK'], '-c', 'sha1', '-K',
               os.path.join(top, 'base.K'), '-h', '127.0.0.1', '-p',
               env['PORT']]
    else:
        top, src = env['REPLICA'], env['OLDREP']
        parts = ['command', 'transcript', 'file']
        cmd = [env['REPLICATE'], '-D', top, '-h', '127.0.0.1', '-p',
               env['PORT']]

    def nomtime(st):
        # cairn-replicate gives the files it fetches the time they came.
        if what == 'replicate':
            for v in st.values():
                if v[0] == 'f':
                    v[4] = 0
        return st

    old, new = nomtime(old), nomtime(new)

    def state():
        cur = {}
        for part in parts:
            d = os.path.join(top, part)
            if not os.path.isdir(d):
                continue
            for p, v in snap(d).items():
                cur[os.path.normpath(os.path.join(part, p)) if part
                    else p] = v
        return nomtime(json.loads(json.dumps(cur)))

    def one(sig, k):
        fresh(src, top)
        return interrupt(cmd, None, sig, k)

    def verify(label):
        left = temps(top)
        if left:
            fail('%s: temp files left: %s' % (label, ' '.join(left)))
        cur = state()
        bad = []
        for p in sorted(set(old) | set(new) | set(cur)):
            c, o, n = cur.get(p), old.get(p), new.get(p)
            if c != o and c != n:
                bad.append('%s: %s (old %s, new %s)' % (p, fmt(c), fmt(o),
                                                        fmt(n)))
        if bad:
            fail('%s: %s' % (label, '; '.join(bad)))
        # ktcheck is all or nothing: the whole set is old, or all new.
        if what == 'ktcheck' and cur != old and cur != new:
            fail('%s: part old, part new: %s' % (label, ' '.join(
                p for p in sorted(set(old) | set(cur))
                if cur.get(p) != old.get(p))))
        r = run(cmd, None, shim=False)
        if r.returncode not in (0, 1):
            fail('%s: rerun exited %d: %s' % (label, status(r), err(r)))
        got = state()
        if got != new:
            fail('%s: the rerun did not bring the new state: %s' % (
                label, ' '.join(p for p in sorted(set(got) | set(new))
                                if got.get(p) != new.get(p))))

    fresh(src, top)
    m = count(cmd, None, tmp)
    got = state()
    if got != new:
        fail('counting run: not the new state: %s' % ' '.join(
            '%s: %s, not %s' % (p, fmt(got.get(p)), fmt(new.get(p)))
            for p in sorted(set(got) | set(new)) if got.get(p) != new.get(p)))
    n = sweep(what, npoints, m, one, verify)
    print('%d %d' % (m, n))
    return 0


def main():
    if len(sys.argv) > 4 and sys.argv[1] == 'runat':
        name, k = sys.argv[2].split(':')
        sig = getattr(signal, 'SIG' + sys.argv[3])
        r = interrupt(sys.argv[4:], None, sig, int(k), name)
        sys.stdout.buffer.write(r.stdout)
        sys.stderr.buffer.write(r.stderr)
        return status(r)
    if len(sys.argv) == 4 and sys.argv[1] == 'lapply':
        return lapply_main(int(sys.argv[2]), int(sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] in ('ktcheck', 'replicate'):
        return dir_main(int(sys.argv[2]), sys.argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
