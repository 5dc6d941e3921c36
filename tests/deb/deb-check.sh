#!/bin/bash
# deb-check.sh: build the Debian packages from the committed tree and try
# them on this machine.
#
#   tests/deb/deb-check.sh
#
# As root, on Debian, with debhelper, dpkg-dev and lintian installed:
#  1. copies HEAD (git archive: no build products, no uncommitted changes)
#     into a temporary directory and runs dpkg-buildpackage -us -uc -b there,
#  2. runs lintian on the .changes: any error (E:) fails,
#  3. installs cairn-server and cairn-client with dpkg -i and checks the
#     repository's owners and, when port 6222 was free, that the packaged
#     cairnd runs as the user cairnd and answers,
#     then publishes a loadset with the installed lcreate and cairn-publish
#     and pulls it with the client package's cairn-ra update,
#  4. runs ./quickstart --installed: the demonstration with /usr/sbin/cairnd
#     and the clients in /usr/bin,
#  5. purges both packages and checks that nothing of theirs is left: no
#     file, unit, init script link, process, user or group.
# Prints "deb-check: PASS" or "deb-check: FAIL (why)" last; exits 0 or 1.
# Refuses to start (exit 2) if the packages are installed already or a
# user cairnd exists that the packages did not make.  A /var/radmind that
# exists beforehand is saved (tar) and put back as it was after the purge.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C DEBIAN_FRONTEND=noninteractive
PKGS="cairn-server cairn-client"
fails=
work=
installed=no

say()
{
	printf '==> deb-check: %s\n' "$*"
}

fail()
{
	echo "deb-check: $*" >&2
	fails="$fails; $*"
}

# A /var/radmind that was there before (a repository or a test's) gets
# its owners and modes back, and the directories the purge took.
restore_radmind()
{
	if [ -n "$work" ] && [ -f "$work/radmind-before.tar" ]; then
		tar -C /var -xpf "$work/radmind-before.tar" &&
		    rm -f "$work/radmind-before.tar"
	fi
}

# check_cairnd PORT WHAT [CODES]: a cairnd answers on 127.0.0.1:PORT with
# a reply whose code is in CODES (default 200: this host is in config),
# and its listener runs as the user cairnd.
check_cairnd()
{
	local port=$1 what=$2 codes=${3:-200} banner='' pid user
	for _ in $(seq 50); do
		banner=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
		    timeout 5 head -n 1 <&3) 2>/dev/null || true)
		[ -n "$banner" ] && break
		sleep 0.1
	done
	case " $codes " in
	*" ${banner%%[- ]*} "*) say "$what answers: $banner" ;;
	*) fail "$what: '$banner' on port $port"; return ;;
	esac
	pid=$(ss -ltnpH "sport = :$port" 2>/dev/null |
	    sed -n 's/.*"cairnd",pid=\([0-9]*\).*/\1/p' | head -n 1)
	user=$(ps -o user= -p "${pid:-0}" 2>/dev/null || true)
	if [ "$user" = cairnd ]; then
		say "$what runs as the user cairnd (pid $pid)"
	else
		fail "$what runs as '${user:-?}', not cairnd"
	fi
}

# ra_update PORT: the administrator's round trip on the installed
# programs against the packaged cairnd on PORT: capture a tree (fsdiff
# -C), upload it (lcreate), publish it (cairn-publish -k demo.K), then
# cairn-ra update from the client package pulls it into an empty root.
ra_update()
{
	local port=$1 ref=$work/ref root=$work/root ra=$work/ra prom
	mkdir -p "$ref/etc/app" "$ref/opt/app/bin" "$root" "$ra/client"
	printf 'port = 8080\n' >"$ref/etc/app/app.conf"
	printf '#!/bin/sh\necho app\n' >"$ref/opt/app/bin/app"
	chmod 755 "$ref/opt/app/bin/app"
	: >"$work/empty.K"
	if ! (cd "$ref" && /usr/bin/fsdiff -C -c sha1 -K "$work/empty.K" \
	    -o "$work/app.T" . &&
	    /usr/bin/lcreate -h 127.0.0.1 -p "$port" -c sha1 "$work/app.T"); then
		fail "fsdiff -C and lcreate to the packaged cairnd failed"
		return
	fi
	if ! /usr/sbin/cairn-publish -D "$repo" -c sha1 -k demo.K app.T; then
		fail "cairn-publish failed"
		return
	fi
	prom=$work/cairn-ra.prom
	cat >"$work/ra.conf" <<-EOF_CONF
	SERVER=127.0.0.1
	PORT=$port
	RADMIND_DIR='$ra'
	WORKDIR='$root'
	STATUS_FILE='$prom'
	CHECKSUM=sha1
	EOF_CONF
	say "/usr/sbin/cairn-ra update (against the packaged cairnd)"
	if ! /usr/sbin/cairn-ra -f "$work/ra.conf" update; then
		fail "cairn-ra update failed"
		return
	fi
	if ! diff -r --no-dereference "$ref" "$root"; then
		fail "cairn-ra update: the tree differs from the published one"
	fi
	if ! grep -q '^cairn_ra_last_run_success{verb="update"} 1$' "$prom"; then
		fail "cairn-ra update: no success in its status file"
	fi
	say "cairn-ra update pulled the published loadset"
}

cleanup()
{
	if [ "$installed" = yes ]; then
		# shellcheck disable=SC2086
		dpkg --purge $PKGS >/dev/null 2>&1 || true
	fi
	restore_radmind
	if [ -n "$work" ] && [ -d "$work" ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT

finish()
{
	if [ -z "$fails" ]; then
		echo "deb-check: PASS"
		exit 0
	fi
	echo "deb-check: FAIL (${fails#; })"
	exit 1
}

if [ "$(id -u)" -ne 0 ]; then
	echo "deb-check: must run as root (it installs and purges packages)" >&2
	exit 2
fi
for p in $PKGS; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		echo "deb-check: $p is installed already; purge it first" >&2
		exit 2
	fi
done
if getent passwd cairnd >/dev/null || getent group cairnd >/dev/null; then
	echo "deb-check: a user or group cairnd exists already" >&2
	exit 2
fi
for t in dpkg-buildpackage dh lintian git; do
	command -v "$t" >/dev/null ||
	    { echo "deb-check: $t not found (apt-get install debhelper dpkg-dev lintian git)" >&2; exit 2; }
done

if ! git -C "$top" rev-parse --verify -q HEAD >/dev/null; then
	echo "deb-check: $top is not a git checkout (the packages are built from HEAD)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-deb.XXXXXX")
src=$work/cairn

# 1. Build from a clean copy of HEAD.
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	say "note: uncommitted changes are not part of the build (HEAD is)"
fi
say "dpkg-buildpackage -us -uc -b in a copy of HEAD"
mkdir "$src"
git -C "$top" archive --format=tar HEAD | tar -xf - -C "$src"
start=$(date +%s)
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log"
	fail "dpkg-buildpackage failed"
	finish
fi
say "packages built in $(( $(date +%s) - start )) s:"
(cd "$work" && ls -1 ./*.deb ./*.changes | sed 's|^\./|    |')
changes=$(ls "$work"/*.changes)

# 2. lintian: errors fail, warnings are shown.
say "lintian $(basename "$changes")"
lintian --info "$changes" >"$work/lintian.log" 2>&1 || true
grep -v '^N: ' "$work/lintian.log" | grep -v '^N:$' | sed 's/^/    /' || true
if grep -q '^E: ' "$work/lintian.log"; then
	fail "lintian reports errors"
fi
if grep -q '^W: ' "$work/lintian.log"; then
	say "lintian warnings: $(grep -c '^W: ' "$work/lintian.log")"
fi

# 3. Install.  Was /var/radmind there before (then it may stay)?  Was
#    port 6222 free?  Then the packaged cairnd must run.
radmind_before=no
if [ -e /var/radmind ]; then
	radmind_before=yes
	say "/var/radmind exists: saved, and restored after the purge"
	tar -C /var -cpf "$work/radmind-before.tar" radmind
fi
port_free=yes
if (exec 3<>/dev/tcp/127.0.0.1/6222) 2>/dev/null; then
	port_free=no
	say "port 6222 is in use here: not checking the packaged service"
fi
say "dpkg -i"
debs=
for p in $PKGS; do
	debs="$debs $work/${p}_*.deb"
done
# shellcheck disable=SC2086
if ! dpkg -i $debs; then
	installed=yes
	fail "dpkg -i failed"
	finish
fi
installed=yes
uid=$(id -u cairnd 2>/dev/null) || fail "no user cairnd after installation"
for d in command file special transcript tmp tmp/file tmp/transcript; do
	case $d in
	tmp*) want="cairnd:cairnd 750" ;;
	*) want="root:cairnd 750" ;;
	esac
	got=$(stat -c '%U:%G %a' "/var/radmind/$d" 2>/dev/null || echo missing)
	[ "$got" = "$want" ] || fail "/var/radmind/$d is $got, not $want"
done
[ -d /var/radmind/client ] || fail "no /var/radmind/client"
for f in /usr/sbin/cairnd /usr/sbin/cairn-publish /usr/sbin/cairn-sign \
    /usr/sbin/cairn-ra /usr/bin/ktcheck /usr/bin/lapply; do
	[ -x "$f" ] || fail "$f not installed"
done
# Signed releases: the client's key directory is there, and empty (no
# key pinned until the administrator puts one).
[ -d /etc/cairn/keys ] || fail "no /etc/cairn/keys"
[ -z "$(ls -A /etc/cairn/keys)" ] || fail "/etc/cairn/keys is not empty"
# The nightly update is the administrator's to enable (README.Debian).
if [ -e /etc/systemd/system/timers.target.wants/cairn-ra.timer ]; then
	fail "installing enabled cairn-ra.timer"
fi
if [ "$port_free" = yes ] && [ -x /usr/sbin/policy-rc.d ]; then
	say "policy-rc.d here: the installation does not start services"
elif [ "$port_free" = yes ]; then
	# No config yet: it answers 421 (README.Debian, "Enabled and started").
	check_cairnd 6222 "the cairnd the installation started" "200 421"
fi
# The installed init script with -g cairnd, on a port of its own (whatever
# holds 6222 here) and without systemctl redirection, over a repository
# laid out as README.Debian says, whose config lists this host.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
repo=$work/repo
mkdir -p "$repo/tmp/file" "$repo/tmp/transcript"
for d in command file special transcript; do
	mkdir "$repo/$d"
	chown root:cairnd "$repo/$d"
	chmod 0750 "$repo/$d"
done
chown cairnd:cairnd "$repo/tmp" "$repo/tmp/file" "$repo/tmp/transcript"
chmod 0750 "$repo/tmp" "$repo/tmp/file" "$repo/tmp/transcript"
echo '127.0.0.1 demo.K' >"$repo/config"
: >"$repo/command/demo.K"
chgrp cairnd "$repo/config" "$repo/command/demo.K"
chmod 0640 "$repo/config" "$repo/command/demo.K"
printf 'CAIRND_OPTS="-g cairnd -a 127.0.0.1 -p %s -D %s"\nPIDFILE=%s\n' \
    "$port" "$repo" "$work/cairnd.pid" >"$work/cairnd.default"
say "/etc/init.d/cairnd start (-g cairnd, port $port)"
if SYSTEMCTL_SKIP_REDIRECT=1 CAIRND_DEFAULTS=$work/cairnd.default \
    /etc/init.d/cairnd start; then
	check_cairnd "$port" "cairnd started by /etc/init.d/cairnd"
	ra_update "$port"
	SYSTEMCTL_SKIP_REDIRECT=1 CAIRND_DEFAULTS=$work/cairnd.default \
	    /etc/init.d/cairnd stop || fail "/etc/init.d/cairnd stop failed"
else
	fail "/etc/init.d/cairnd start failed"
fi

# 4. The demonstration on the installed programs.
say "./quickstart --installed"
if ! "$src/quickstart" --installed; then
	fail "quickstart --installed failed"
fi

# 5. Purge, and check that nothing of the packages is left.
lists=
for p in $PKGS; do
	lists="$lists $(dpkg-query -L "$p" | tr '\n' ' ')"
done
say "dpkg --purge"
# shellcheck disable=SC2086
dpkg --purge $PKGS || fail "dpkg --purge failed"
installed=no
for p in $PKGS; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		fail "$p still installed"
	fi
done
for f in $lists; do
	[ "$f" != /. ] || continue
	case $f in
	/var/radmind|/var/radmind/*)
		[ "$radmind_before" = no ] || continue
		;;
	esac
	[ -e "$f" ] || [ -L "$f" ] || continue
	# A directory may stay when another package has it (/usr/bin, ...).
	if [ -d "$f" ] && dpkg-query -S "$f" >/dev/null 2>&1; then
		continue
	fi
	fail "$f left after purge"
done
if [ "$radmind_before" = no ] && [ -e /var/radmind ]; then
	fail "/var/radmind left after purge"
fi
for f in /etc/default/cairnd /etc/init.d/cairnd /etc/default/cairn-ra \
    /var/lib/systemd/deb-systemd-helper-enabled/cairn-ra.timer.dsh-also \
    /etc/systemd/system/multi-user.target.wants/cairnd.service \
    /var/lib/systemd/deb-systemd-helper-enabled/cairnd.service.dsh-also; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		fail "$f left after purge"
	fi
done
if ls /etc/rc?.d/*cairnd >/dev/null 2>&1; then
	fail "init script links left: $(ls /etc/rc?.d/*cairnd | tr '\n' ' ')"
fi
getent passwd cairnd >/dev/null && fail "user cairnd left after purge"
getent group cairnd >/dev/null && fail "group cairnd left after purge"
if [ -n "${uid:-}" ] && [ -n "$(ps -C cairnd -o pid=,uid= 2>/dev/null |
    awk -v u="$uid" '$2 == u')" ]; then
	fail "a cairnd process of the user cairnd (uid $uid) still runs"
fi
say "purged: no file, link, user or process of the packages left"
restore_radmind
finish
