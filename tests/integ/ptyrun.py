#!/usr/bin/env python3
"""Run a command on a pseudo-terminal and record what it writes there.

usage: ptyrun.py [-o STDOUT] [-t SECONDS] LOG CMD [ARG...]
       ptyrun.py -S LOG SCREEN DRAWN

The command's stdin, stderr and (without -o) stdout are the slave side
of a new pty, 100 columns wide; with -o its stdout goes to the file
STDOUT instead.  Every byte written to the terminal is copied to LOG.
The command is killed after SECONDS (default 60).  Exits with the
command's status (128 + signal if it was killed by one, 124 on the
timeout).

With -S, LOG is replayed as a terminal would show it: SCREEN gets the
lines left on the screen (a last line not ended by a newline is written
too, so a status line left behind shows), DRAWN every text drawn in
place as carriage return, text, erase to the end of the line."""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time


def screen(log, scr, drawn):
    with open(log, 'rb') as fp:
        data = fp.read().decode('utf-8', 'replace')
    lines, line, cur = [], [], 0
    i = 0
    while i < len(data):
        if data.startswith('\033[K', i):
            del line[cur:]
            i += 3
            continue
        ch = data[i]
        i += 1
        if ch == '\r':
            cur = 0
        elif ch == '\n':
            lines.append(''.join(line))
            line, cur = [], 0
        elif cur < len(line):
            line[cur] = ch
            cur += 1
        else:
            line.append(ch)
            cur += 1
    if line:
        lines.append(''.join(line))
    with open(scr, 'w') as fp:
        fp.writelines(x + '\n' for x in lines)
    with open(drawn, 'w') as fp:
        for m in re.finditer('\r([^\r\n\033]+)\033\\[K', data):
            fp.write(m.group(1) + '\n')
    return 0


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == '-S':
        return screen(args[1], args[2], args[3])
    out = None
    limit = 60.0
    while args and args[0].startswith('-'):
        if args[0] == '-o' and len(args) > 1:
            out = args[1]
            args = args[2:]
        elif args[0] == '-t' and len(args) > 1:
            limit = float(args[1])
            args = args[2:]
        else:
            break
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    log, cmd = args[0], args[1:]

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 100, 0, 0))
    pid = os.fork()
    if pid == 0:
        try:
            # A session of its own, with the signals a terminal sends at
            # their default action whatever the caller ignored.
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                      signal.SIGQUIT):
                signal.signal(s, signal.SIG_DFL)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            os.dup2(slave, 0)
            os.dup2(slave, 2)
            if out is None:
                os.dup2(slave, 1)
            else:
                fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                             0o644)
                os.dup2(fd, 1)
                os.close(fd)
            os.close(master)
            os.close(slave)
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    os.close(slave)

    deadline = time.monotonic() + limit
    status = None
    timed_out = False
    with open(log, 'wb') as fp:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            r, _, _ = select.select([master], [], [], min(left, 0.5))
            if r:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    data = b''      # EIO: every slave fd is closed
                if not data:
                    break
                fp.write(data)
            elif status is None:
                wpid, st = os.waitpid(pid, os.WNOHANG)
                if wpid == pid:
                    status = st
        if status is None:
            _, status = os.waitpid(pid, 0)
    os.close(master)
    if timed_out:
        return 124
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == '__main__':
    sys.exit(main())
