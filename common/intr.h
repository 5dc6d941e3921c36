/*
 * intr.h: an interrupted client leaves nothing behind.
 *
 * A tool's main() calls intr_init() before it starts any other thread.
 * SIGINT, SIGTERM and SIGHUP are then blocked in every thread (a thread
 * started later inherits the mask) and taken by one thread of this
 * module with sigwait(3), outside any signal handler, so that it may
 * take locks.  A signal that was ignored when the tool started (nohup,
 * a background job of a script) stays ignored.
 *
 * When one of them arrives, that thread:
 *  1. waits until every held section under way (intr_hold ..
 *     intr_release) is over; from then on no section starts: the main
 *     thread waits in intr_hold until the process ends, another thread
 *     gets -1 (errno EINTR) from it;
 *  2. removes every temporary file registered with intr_tmp_add and not
 *     yet forgotten with intr_tmp_del, then runs the log's cleanup hooks
 *     (log_addcleanup: a staging directory, the temp of an output file),
 *     which must therefore be registered with what they undo inside a
 *     held section;
 *  3. runs the hook set with intr_onexit (the status line of lapply is
 *     cleared there) and flushes stdout;
 *  4. dies of the signal (its default action): a shell reports 128 plus
 *     its number, 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
 *
 * So a held section, a change made of several steps (a new directory
 * and its owner and mode), is either wholly done or not begun, and a
 * temp file is either renamed over its destination (a single rename:
 * the destination is the old file or the new one) or removed.  A held
 * section must not wait for another thread that may hold one.
 */
#ifndef CAIRN_INTR_H
#define CAIRN_INTR_H

/* Block the signals and start their thread.  0, or -1 with errno. */
int	intr_init(void);

/*
 * Begin and end a held section; they nest.  intr_hold returns 0, or -1
 * with errno EINTR in a thread other than intr_init's once the process
 * is being interrupted (intr_init's thread then never returns from it).
 */
int	intr_hold(void);
void	intr_release(void);

/*
 * Register the temporary file name in the directory dfd before creating
 * it, inside a held section (so that the removal cannot run between the
 * two): a descriptor of the directory is kept until intr_tmp_del.  The
 * key is the pointer name itself, which must stay valid and unchanged
 * until intr_tmp_del(name), called once the file is renamed or removed.
 * Returns 0, or -1 with errno (no descriptor left).
 */
int	intr_tmp_add(int dfd, const char *name);
void	intr_tmp_del(const char *name);

/*
 * Call fn(arg) after the temp files are removed, before dying; it runs
 * in the signal thread while the others are stopped only at held
 * sections: what it looks at must be written inside one.  NULL: none.
 */
void	intr_onexit(void (*fn)(void *), void *arg);

/*
 * exit(status), unless the process is being interrupted: then it waits
 * to die of the signal, so that the status says it was interrupted.
 */
void	intr_exit(int status) __attribute__((noreturn));

/* In a child after fork(2), before exec: the signal mask as it was. */
void	intr_child(void);

#endif
