#!/usr/bin/env python3
"""tracecheck.py: the order of lapply's mutating calls, from a trace of
tests/integ/shim.so (CAIRN_SHIM_TRACE), for t-lapply-trace.sh.

  tracecheck.py TRACE ROOT APPLY.T PRE.json

TRACE is the trace of one successful lapply run in ROOT over the
applicable transcript APPLY.T; PRE.json is a crashcheck.py snapshot of
ROOT taken before the run.  Checked (docs/security.md I2, C8, G5):

  - every traced call succeeded and named a path under ROOT;
  - every file created is a temp file: created O_CREAT|O_EXCL|O_NOFOLLOW,
    mode 0600, named "<leaf>.radmind.<pid>" (or ".radmind.<pid>.<line>"),
    and renamed over a path the transcript downloads, in the same
    directory; it was fsynced after its last owner, mode or time change
    and before that rename (or a syncfs came after that change and before
    the rename: the root is one file system); every "+" line got exactly
    one such rename;
  - every change to the entries of a directory (create, rename into or
    out of, unlink, mkdir, link, symlink, mknod) is followed by an fsync
    of that directory or a syncfs, unless the directory itself is removed
    later;
  - owner and mode, followed through every chown, chmod and rename from
    the state before the run (a new temp file or directory: root's, its
    creation mode less the umask): an object has a set-uid bit only
    with an owner that had it before the run or is declared with it,
    and a set-gid bit likewise only with such a group (the chown comes
    before the chmod that sets the bit, the bit goes before the chown
    that would hand it over); no set-id bit comes with a group or other
    write bit the line does not declare; a mode set on an object never
    grants a bit that neither its old mode nor its declared mode has.
    (The model keeps set-id bits across a chown, which Linux clears:
    the order must be safe without that help.)
  - the owner and mode that result are the declared ones, and what is on
    disk.

Prints the failures, one a line, and exits 1 if there is any; exits 0
and prints a summary (renames, fsyncs) if not.
"""
import json
import os
import re
import stat
import sys

O_CREAT = 0o100
O_EXCL = 0o200
O_NOFOLLOW = 0o400000
AT_REMOVEDIR = 0x200
TEMP = re.compile(r'(^|/)[^/]*\.radmind\.[0-9]+(\.[0-9]+)?$')

# Calls that change the entries of the directory of their path
# arguments (by index among the path arguments).
NAMESPACE = {
    'unlink': (0,), 'unlinkat': (0,), 'rename': (0, 1),
    'renameat': (0, 1), 'renameat2': (0, 1), 'symlink': (1,),
    'symlinkat': (1,), 'link': (1,), 'linkat': (1,), 'mkdir': (0,),
    'mkdirat': (0,), 'mknod': (0,), 'mknodat': (0,), 'mkfifoat': (0,),
}
OWNER = ('chown', 'fchown', 'fchownat', 'lchown')
MODE = ('chmod', 'fchmod', 'fchmodat')
TIME = ('futimens', 'utimensat')
OPEN = ('open', 'open64', 'openat', 'openat64')
SYNC = ('fsync', 'fdatasync')
# A sync of the whole file system (the root under test is one).
FSSYNC = ('syncfs',)


def unescape(s):
    return re.sub(r'\\x([0-9a-f]{2})', lambda m: chr(int(m.group(1), 16)), s)


def decode(s):
    out, i = [], 0
    esc = {'b': ' ', 't': '\t', 'n': '\n', 'r': '\r', '\\': '\\'}
    while i < len(s):
        if s[i] == '\\' and i + 1 < len(s) and s[i + 1] in esc:
            out.append(esc[s[i + 1]])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


class Call:
    def __init__(self, n, line):
        self.n = n
        self.text = line
        left, _, right = line.rpartition(' = ')
        tok = left.split(' ')
        self.name = tok[0]
        self.paths = []
        self.args = {}
        for t in tok[1:]:
            k, eq, v = t.partition('=')
            if eq and k in ('uid', 'gid', 'mode', 'flags', 'dev'):
                self.args[k] = int(v, 0) if k != 'mode' else int(v, 8)
            else:
                self.paths.append(os.path.normpath(unescape(t)))
        res = right.split(' ')
        self.ret = int(res[0])


def transcript(path, root):
    """Declared state per absolute path, and the paths downloaded."""
    decl, plus = {}, set()
    for raw in open(path, encoding='latin-1'):
        raw = raw.rstrip('\n')
        if not raw or raw.endswith(':'):
            continue
        sign = ''
        if raw[:2] in ('+ ', '- '):
            sign, raw = raw[0], raw[2:]
        f = raw.split()
        p = os.path.normpath(os.path.join(root, decode(f[1])))
        if sign == '-' or f[0] in ('l', 'h'):
            continue
        decl[p] = (int(f[2], 8), int(f[3]), int(f[4]))
        if sign == '+':
            plus.add(p)
    return decl, plus


def main():
    trace, root, applyt, prejson = sys.argv[1:5]
    root = os.path.realpath(root)
    decl, plus = transcript(applyt, root)
    pre = json.load(open(prejson))
    umask = os.umask(0)
    os.umask(umask)
    bad = []
    calls = [Call(i + 1, l.rstrip('\n')) for i, l in enumerate(open(trace))]
    if not calls:
        bad.append('empty trace')

    def err(c, msg):
        bad.append('call %d (%s): %s' % (c.n, c.text, msg))

    for c in calls:
        if c.ret == -1:
            err(c, 'failed')
        for p in c.paths:
            if c.name in ('symlink', 'symlinkat') and p is c.paths[0]:
                continue
            if p != root and not p.startswith(root + '/'):
                err(c, 'outside the root')

    # Object states: absolute path -> [uid, gid, mode, final path, old
    # uid, old gid, old mode].
    state = {}
    for rel, d in pre.items():
        if d[0] in ('f', 'd'):
            p = os.path.normpath(os.path.join(root, rel))
            state[p] = [d[2], d[3], d[1], p, d[2], d[3], d[1]]
    temps = {}          # temp path -> index of its creating call
    renamed = {}        # final path -> number of temp renames into it
    for i, c in enumerate(calls):
        if c.name in OPEN and c.args['flags'] & O_CREAT:
            p = c.paths[0]
            f = c.args['flags']
            if (f & (O_EXCL | O_NOFOLLOW)) != O_EXCL | O_NOFOLLOW:
                err(c, 'created without O_EXCL|O_NOFOLLOW')
            if c.args['mode'] != 0o600:
                err(c, 'created with mode 0%o, not 0600' % c.args['mode'])
            if not TEMP.search(p):
                err(c, 'creates a file that is not a temp file')
            temps[p] = i
            m = 0o600 & ~umask
            state[p] = [0, 0, m, None, 0, 0, m]
            # Where it goes: its rename.
            for d in calls[i + 1:]:
                if d.name.startswith('rename') and d.paths[0] == p:
                    state[p][3] = d.paths[1]
                    break
            final = state[p][3]
            if final is None:
                err(c, 'temp file never renamed')
                continue
            if os.path.dirname(final) != os.path.dirname(p):
                err(c, 'temp file not in the directory of %s' % final)
            if final not in plus:
                err(c, '%s is not downloaded by the transcript' % final)
            # Durable before the rename, after its last metadata change:
            # its own fsync, or a syncfs after that change.
            synced = fssynced = None
            for d in calls[i + 1:]:
                if d.paths[:1] == [p] and d.name in SYNC:
                    synced = d
                elif d.name in FSSYNC:
                    fssynced = d
                elif d.paths[:1] == [p] and d.name in OWNER + MODE + TIME:
                    if synced is not None:
                        err(d, 'metadata change after the fsync of call %d'
                            % synced.n)
                    fssynced = None
                elif d.name.startswith('rename') and d.paths[0] == p:
                    if synced is None and fssynced is None:
                        err(d, 'renamed without an fsync before')
                    renamed[final] = renamed.get(final, 0) + 1
                    break
    for p in sorted(plus):
        if renamed.get(p, 0) != 1:
            bad.append('%s: %d renames into it, not 1' %
                       (p, renamed.get(p, 0)))

    # Directory fsyncs after every change of their entries.
    for i, c in enumerate(calls):
        dirs = []
        if c.name in NAMESPACE:
            dirs = [os.path.dirname(c.paths[k]) for k in NAMESPACE[c.name]]
        elif c.name in OPEN and c.args['flags'] & O_CREAT:
            dirs = [os.path.dirname(c.paths[0])]
        for d in dirs:
            ok = False
            for e in calls[i + 1:]:
                if (e.name in SYNC and e.paths == [d]) or e.name in FSSYNC:
                    ok = True
                    break
                if (e.name == 'unlinkat' and e.paths == [d] and
                        e.args['flags'] & AT_REMOVEDIR):
                    ok = True       # the directory went: its parent counts
                    break
            if not ok:
                err(c, 'no fsync of %s after it' % d)

    # Owner and mode, step by step.
    for c in calls:
        if c.name.startswith('rename') and c.paths[0] in state:
            state[c.paths[1]] = state.pop(c.paths[0])
            continue
        if c.name in ('mkdir', 'mkdirat', 'mknod', 'mknodat', 'mkfifoat'):
            m = c.args['mode'] & 0o7777 & ~umask
            state[c.paths[0]] = [0, 0, m, c.paths[0], 0, 0, m]
            continue
        if c.name not in OWNER + MODE or not c.paths:
            continue
        p = c.paths[0]
        if p not in state:
            err(c, 'owner or mode change on an unknown object')
            continue
        s = state[p]
        final = s[3]
        if final not in decl:
            err(c, 'owner or mode change on %s, not declared' % final)
            continue
        dmode, duid, dgid = decl[final]
        ouid, ogid, omode = s[4], s[5], s[6]
        if c.name in OWNER:
            if c.args['uid'] != -1:
                s[0] = c.args['uid']
            if c.args['gid'] != -1:
                s[1] = c.args['gid']
        else:
            m = c.args['mode'] & 0o7777
            if m & ~(omode | dmode):
                err(c, 'grants mode bits 0%o that neither the old mode '
                    '0%o nor the declared 0%o has' % (m & ~(omode | dmode),
                                                       omode, dmode))
            s[2] = m
        uid, gid, mode = s[0], s[1], s[2]
        if mode & stat.S_ISUID and not (
                (uid == duid and dmode & stat.S_ISUID) or
                (uid == ouid and omode & stat.S_ISUID)):
            err(c, 'set-uid with owner %d (declared %d mode 0%o, before '
                '%d mode 0%o)' % (uid, duid, dmode, ouid, omode))
        if mode & stat.S_ISGID and not (
                (gid == dgid and dmode & stat.S_ISGID) or
                (gid == ogid and omode & stat.S_ISGID)):
            err(c, 'set-gid with group %d (declared %d mode 0%o, before '
                '%d mode 0%o)' % (gid, dgid, dmode, ogid, omode))
        if mode & 0o6000 and mode & 0o022 & ~dmode:
            err(c, 'set-id and writable by group or others (0%o)' % mode)

    for p, (dmode, duid, dgid) in sorted(decl.items()):
        if p not in state or not os.path.lexists(p):
            continue
        s = state[p]
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            continue
        if (s[0], s[1], s[2]) != (duid, dgid, dmode):
            bad.append('%s: traced owner %d:%d mode 0%o, declared %d:%d '
                       '0%o' % (p, s[0], s[1], s[2], duid, dgid, dmode))
        if (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) != \
                (duid, dgid, dmode):
            bad.append('%s: on disk %d:%d 0%o, declared %d:%d 0%o' %
                       (p, st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode),
                        duid, dgid, dmode))

    for b in bad:
        print(b)
    if bad:
        return 1
    print('renames %d, fsyncs %d, calls %d' %
          (sum(renamed.values()),
           sum(1 for c in calls if c.name in SYNC + FSSYNC), len(calls)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
