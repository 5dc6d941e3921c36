/*
 * cairn-sign: make Ed25519 keys, sign release manifests and check
 * signatures (cairn-sign(8), docs/signing.md).  Meant for the offline
 * machine that keeps the private key; it never touches the network.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "copts.h"
#include "fsutil.h"
#include "log.h"
#include "manifest.h"
#include "sig.h"
#include "xmalloc.h"

#define SIGN_OK		0	/* done; verified */
#define SIGN_BAD	1	/* -c: does not verify, or expired */
#define SIGN_ERROR	2	/* usage, files */

struct signopts {
	const char	*gen;		/* -g name */
	const char	**keys;		/* -k, at most SIG_LINESMAX */
	int		 nkeys;
	const char	*pinned;	/* -K */
	const char	*check;		/* -c manifest */
	const char	*list;		/* -l keyfile */
	const char	*out;		/* -o */
	int		 modes;
};

static void
usage(void)
{
	fprintf(stderr, "usage: cairn-sign -g name\n"
	    "       cairn-sign -k key [ -k key ] ... [ -o signature ] "
	    "manifest\n"
	    "       cairn-sign -K keys -c manifest signature\n"
	    "       cairn-sign -l key\n"
	    "       cairn-sign -V\n");
	exit(SIGN_ERROR);
}

static int
sign_opt(int c, const char *arg, void *ctx)
{
	struct signopts	*so = ctx;

	switch (c) {
	case 'g':
		so->gen = arg;
		so->modes |= 1;
		break;
	case 'k':
		if (so->nkeys == SIG_LINESMAX) {
			log_warnx("-k: at most %d keys", SIG_LINESMAX);
			return -1;
		}
		so->keys[so->nkeys++] = arg;
		so->modes |= 2;
		break;
	case 'K':
		so->pinned = arg;
		so->modes |= 4;
		break;
	case 'c':
		so->check = arg;
		so->modes |= 4;
		break;
	case 'l':
		so->list = arg;
		so->modes |= 8;
		break;
	case 'o':
		so->out = arg;
		so->modes |= 2;
		break;
	case 'h':
		return -1;
	}
	return 0;
}

/* Read and parse the manifest at path; its bytes in *b. */
static void
read_manifest(const char *path, struct buf **b, struct manifest *m)
{
	struct cerr	 err;

	if (fs_read_file(AT_FDCWD, path, MANIFEST_MAX, b) == -1) {
		if (errno == EFBIG)
			fatalx("%s: larger than %d bytes", path, MANIFEST_MAX);
		fatal("%s", path);
	}
	if (manifest_parse(buf_data(*b), buf_len(*b), path, m, &err) == -1)
		fatalx("%s", err.msg);
}

static const char *
utc(int64_t t)
{
	static char	 s[2][32];
	static int	 i;
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	i = !i;
	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(s[i], sizeof(s[i]), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(s[i], sizeof(s[i]), "%lld", (long long)t);
	return s[i];
}

static int
do_gen(const char *name)
{
	struct cerr	 err;
	char		*priv, *pub, id[SIG_KEYIDLEN + 1];

	xasprintf(&priv, "%s.key", name);
	xasprintf(&pub, "%s.pub", name);
	if (sig_keygen(priv, pub, &err) == -1)
		fatalx("%s", err.msg);
	if (sig_keyid_file(pub, id, &err) == -1)
		fatalx("%s", err.msg);
	printf("%s: private key (keep it offline)\n%s: public key %s\n",
	    priv, pub, id);
	free(priv);
	free(pub);
	return SIGN_OK;
}

static int
do_sign(struct signopts *so, const char *path)
{
	struct manifest	 m;
	struct buf	*b, *sig;
	struct cerr	 err;
	struct fs_out	 o;
	int		 i;

	read_manifest(path, &b, &m);
	sig = buf_new(SIG_MAX);
	sig_file_begin(sig);
	for (i = 0; i < so->nkeys; i++)
		if (sig_sign(so->keys[i], buf_data(b), buf_len(b), sig,
		    &err) == -1)
			fatalx("%s", err.msg);
	sig_file_end(sig, (size_t)so->nkeys);
	if (so->out == NULL) {
		if (fs_write_all(STDOUT_FILENO, buf_data(sig),
		    buf_len(sig)) == -1)
			fatal("standard output");
	} else {
		if (fs_out_open(&o, so->out) == -1)
			fatal("%s", o.name);
		if (fwrite(buf_data(sig), 1, buf_len(sig), o.fp) !=
		    buf_len(sig) || fs_out_commit(&o) == -1)
			fatal("%s", o.name != NULL ? o.name : so->out);
	}
	fprintf(stderr, "cairn-sign: %s: release %llu (expires %s) signed "
	    "with %d key%s\n", path, (unsigned long long)m.serial,
	    utc(m.expires), so->nkeys, so->nkeys > 1 ? "s" : "");
	manifest_free(&m);
	buf_free(b);
	buf_free(sig);
	return SIGN_OK;
}

static int
do_check(struct signopts *so, const char *sigpath)
{
	struct manifest	 m;
	struct sigkeys	*keys;
	struct buf	*b, *sig;
	struct cerr	 err;
	char		 id[SIG_KEYIDLEN + 1];
	int		 rc = SIGN_OK;

	if ((keys = sigkeys_load(so->pinned, 1, &err)) == NULL)
		fatalx("%s", err.msg);
	read_manifest(so->check, &b, &m);
	if (fs_read_file(AT_FDCWD, sigpath, SIG_MAX, &sig) == -1) {
		if (errno == EFBIG)
			fatalx("%s: larger than %d bytes", sigpath, SIG_MAX);
		fatal("%s", sigpath);
	}
	if (sig_verify(keys, buf_data(sig), buf_len(sig), sigpath,
	    buf_data(b), buf_len(b), id, &err) == -1) {
		log_warnx("%s", err.msg);
		rc = SIGN_BAD;
	} else {
		printf("key %s\nserial %llu\ncreated %s\nexpires %s\n", id,
		    (unsigned long long)m.serial, utc(m.created),
		    utc(m.expires));
		if ((int64_t)time(NULL) >= m.expires) {
			log_warnx("%s: release %llu expired at %s", so->check,
			    (unsigned long long)m.serial, utc(m.expires));
			rc = SIGN_BAD;
		}
	}
	manifest_free(&m);
	buf_free(b);
	buf_free(sig);
	sigkeys_free(keys);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct signopts	 so;
	struct copts	 co;
	struct cerr	 err;
	char		 id[SIG_KEYIDLEN + 1];
	int		 nargs, rc;

	log_init("cairn-sign", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_setfatalstatus(SIGN_ERROR);
	memset(&so, 0, sizeof(so));
	so.keys = xcalloc(SIG_LINESMAX, sizeof(*so.keys));
	copts_init(&co, 0, NULL);
	if (copts_parse(argc, argv, &co, "c:g:hk:K:l:o:", sign_opt,
	    &so) == -1)
		usage();
	nargs = argc - optind;
	switch (so.modes) {
	case 1:
		if (nargs != 0)
			usage();
		rc = do_gen(so.gen);
		break;
	case 2:
		if (nargs != 1 || so.nkeys == 0)
			usage();
		rc = do_sign(&so, argv[optind]);
		break;
	case 4:
		if (nargs != 1 || so.pinned == NULL || so.check == NULL)
			usage();
		rc = do_check(&so, argv[optind]);
		break;
	case 8:
		if (nargs != 0)
			usage();
		if (sig_keyid_file(so.list, id, &err) == -1)
			fatalx("%s", err.msg);
		printf("%s\n", id);
		rc = SIGN_OK;
		break;
	default:
		usage();
	}
	free(so.keys);
	return rc;
}
