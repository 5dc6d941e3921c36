/*
 * intr.c: SIGINT, SIGTERM and SIGHUP for the clients (intr.h).
 *
 * One thread waits for the signals; every other thread has them
 * blocked.  The registry of temporary files, the count of held sections
 * and the signal being acted on are guarded by one mutex.  The signal
 * thread sets the signal under it, waits on the condition until no
 * section is held, then removes the registered files while still
 * holding it, so that no file is registered or created meanwhile.
 *
 * A signal that arrives just before the tool exits must still end it
 * by the signal: at exit (the log's exit gate, so fatal() too) a signal
 * being acted on, or still pending, makes the exiting thread wait for
 * the end.  The signal thread waits with poll(2) on a signalfd, which
 * leaves the signal pending until it is marked under the mutex, so at
 * every moment one of the two shows; where there is no signalfd it
 * waits with sigwait(3), which takes the signal off the pending set a
 * moment before it is marked.
 */
#include "config.h"

#include <sys/types.h>
#ifdef HAVE_SYS_SIGNALFD_H
#include <sys/signalfd.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intr.h"
#include "log.h"
#include "xmalloc.h"

struct intr_tmp {
	int		 dfd;		/* our descriptor of its directory */
	char		*name;		/* our copy */
	const char	*key;		/* the caller's name */
};

static pthread_mutex_t	 intr_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 intr_cv = PTHREAD_COND_INITIALIZER;
static int		 intr_sig;	/* being acted on, 0: none */
static int		 intr_holds;	/* held sections under way */
static struct intr_tmp	*intr_tmps;
static size_t		 intr_ntmps, intr_cap;
static void		(*intr_hookfn)(void *);
static void		*intr_hookarg;

static sigset_t		 intr_set;	/* the signals taken here */
static sigset_t		 intr_oldmask;	/* before intr_init */
static pthread_t	 intr_main;	/* intr_init's thread */
static int		 intr_on;
static int		 intr_sfd = -1;	/* signalfd, or -1: sigwait */
static __thread int	 intr_depth;	/* this thread's nesting */
static __thread int	 intr_self;	/* this is the signal thread */

static const int	 intr_sigs[] = { SIGHUP, SIGINT, SIGTERM };
#define INTR_NSIGS	 (sizeof(intr_sigs) / sizeof(intr_sigs[0]))

/* One of our signals pending (not yet taken by sigwait), or 0. */
static int
intr_pending(void)
{
	sigset_t	p;
	size_t		i;

	if (!intr_on || sigpending(&p) == -1)
		return 0;
	for (i = 0; i < INTR_NSIGS; i++)
		if (sigismember(&intr_set, intr_sigs[i]) == 1 &&
		    sigismember(&p, intr_sigs[i]) == 1)
			return intr_sigs[i];
	return 0;
}

/* Wait for one of our signals; it stays pending with a signalfd. */
static int
intr_wait(void)
{
	struct pollfd	pfd;
	int		sig;

	if (intr_sfd != -1) {
		pfd.fd = intr_sfd;
		pfd.events = POLLIN;
		for (;;) {
			if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
				break;
			if ((sig = intr_pending()) != 0)
				return sig;
		}
	}
	while (sigwait(&intr_set, &sig) != 0)
		continue;
	return sig;
}

/* Remove every registered file, newest first.  Under intr_mu. */
static void
intr_sweep(void)
{
	size_t	i;

	for (i = intr_ntmps; i-- > 0;)
		(void)unlinkat(intr_tmps[i].dfd, intr_tmps[i].name, 0);
}

static void *
intr_thread(void *arg)
{
	struct sigaction	 sa;
	sigset_t		 one;
	int			 sig;

	(void)arg;
	sig = intr_wait();
	pthread_mutex_lock(&intr_mu);
	intr_sig = sig;
	while (intr_holds > 0)
		pthread_cond_wait(&intr_cv, &intr_mu);
	intr_sweep();
	/*
	 * What the tool undoes before a fatal exit (a staging directory, a
	 * -o file's temp) it undoes now too.  The exit gate, intr_atexit,
	 * is not for this thread.
	 */
	intr_self = 1;
	log_cleanup();
	if (intr_hookfn != NULL)
		intr_hookfn(intr_hookarg);
	fflush(stdout);
	fflush(stderr);

	/* Die of it: its default action, from this very thread. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(sig, &sa, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	(void)pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	(void)pthread_kill(pthread_self(), sig);
	_exit(128 + sig);
}

/*
 * The log's exit gate, run by every exit through log_exit (fatal() and
 * intr_exit) after the cleanup hooks: interrupted, or about to be, a
 * thread outside a held section waits for the signal thread to end the
 * process.  A gate, not a hook: the signal thread runs the hooks and
 * forgets them, and a tool ending meanwhile must still wait.
 */
static void
intr_atexit(void)
{
	if (intr_self)
		return;
	pthread_mutex_lock(&intr_mu);
	if (intr_depth == 0 && (intr_sig != 0 || intr_pending() != 0))
		for (;;)
			pthread_cond_wait(&intr_cv, &intr_mu);
	pthread_mutex_unlock(&intr_mu);
}

int
intr_init(void)
{
	struct sigaction	 sa;
	pthread_attr_t		 attr;
	pthread_t		 th;
	size_t			 i;
	int			 n = 0, rc;

	sigemptyset(&intr_set);
	for (i = 0; i < INTR_NSIGS; i++) {
		/* Ignored by whoever started us (nohup): it stays so. */
		if (sigaction(intr_sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&intr_set, intr_sigs[i]);
		n++;
	}
	intr_main = pthread_self();
	if (n == 0)
		return 0;
	if ((rc = pthread_sigmask(SIG_BLOCK, &intr_set, &intr_oldmask)) != 0) {
		errno = rc;
		return -1;
	}
#ifdef HAVE_SIGNALFD
	intr_sfd = signalfd(-1, &intr_set, SFD_CLOEXEC);
#endif
	if ((rc = pthread_attr_init(&attr)) == 0) {
		(void)pthread_attr_setdetachstate(&attr,
		    PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&th, &attr, intr_thread, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		(void)pthread_sigmask(SIG_SETMASK, &intr_oldmask, NULL);
		if (intr_sfd != -1)
			close(intr_sfd);
		intr_sfd = -1;
		errno = rc;
		return -1;
	}
	intr_on = 1;
	log_setexitgate(intr_atexit);
	return 0;
}

int
intr_hold(void)
{
	if (intr_depth > 0) {
		intr_depth++;
		return 0;
	}
	pthread_mutex_lock(&intr_mu);
	if (intr_sig != 0) {
		if (!pthread_equal(pthread_self(), intr_main)) {
			pthread_mutex_unlock(&intr_mu);
			errno = EINTR;
			return -1;
		}
		/* The signal thread ends the process. */
		for (;;)
			pthread_cond_wait(&intr_cv, &intr_mu);
	}
	intr_holds++;
	intr_depth = 1;
	pthread_mutex_unlock(&intr_mu);
	return 0;
}

void
intr_release(void)
{
	int	e = errno;

	if (intr_depth == 0 || --intr_depth > 0)
		return;
	pthread_mutex_lock(&intr_mu);
	if (--intr_holds == 0 && intr_sig != 0)
		pthread_cond_broadcast(&intr_cv);
	pthread_mutex_unlock(&intr_mu);
	errno = e;
}

int
intr_tmp_add(int dfd, const char *name)
{
	struct intr_tmp	*t;
	int		 d;

	if ((d = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	pthread_mutex_lock(&intr_mu);
	if (intr_ntmps == intr_cap) {
		intr_cap = intr_cap ? intr_cap * 2 : 64;
		intr_tmps = xreallocarray(intr_tmps, intr_cap,
		    sizeof(*intr_tmps));
	}
	t = &intr_tmps[intr_ntmps++];
	t->dfd = d;
	t->name = xstrdup(name);
	t->key = name;
	pthread_mutex_unlock(&intr_mu);
	return 0;
}

void
intr_tmp_del(const char *name)
{
	struct intr_tmp	*t;
	size_t		 i;
	int		 e = errno;

	pthread_mutex_lock(&intr_mu);
	for (i = intr_ntmps; i-- > 0;) {
		t = &intr_tmps[i];
		if (t->key != name || strcmp(t->name, name) != 0)
			continue;
		close(t->dfd);
		free(t->name);
		memmove(t, t + 1, (intr_ntmps - i - 1) * sizeof(*t));
		intr_ntmps--;
		break;
	}
	pthread_mutex_unlock(&intr_mu);
	errno = e;
}

void
intr_onexit(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&intr_mu);
	intr_hookfn = fn;
	intr_hookarg = arg;
	pthread_mutex_unlock(&intr_mu);
}

void
intr_exit(int status)
{
	/* Through the log's exit gate: intr_atexit. */
	log_exit(status);
}

void
intr_child(void)
{
	if (intr_on)
		(void)pthread_sigmask(SIG_SETMASK, &intr_oldmask, NULL);
}
