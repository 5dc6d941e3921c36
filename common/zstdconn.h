/*
 * zstdconn.h: zstd compression of a connection between cairn peers
 * (docs/protocol.md section 9.2).
 *
 * A stream filter of the connection (conn.h, struct conn_filter), as
 * zconn.h is for zlib: one zstd stream each way, made of frames.  Output
 * is flushed (ZSTD_e_flush) whenever the sender is about to wait, and a
 * full flush ends the frame (ZSTD_e_end), which forgets the history as
 * zlib's full flush does.  A change of level ends the frame too: the
 * next one starts at the new level.  Level 0 sends the data as they
 * are, in frames of raw blocks this module writes itself (no matching,
 * no entropy coding): the stored path for incompressible bodies.
 *
 * Memory is bounded whatever the peer sends: the decoder refuses a
 * frame whose window is larger than ZSTDCONN_WINDOW (ZSTD_d_windowLogMax),
 * and only accepts zstd frames (no legacy formats, no skippable frames);
 * the encoder never uses a larger window either, at any level.
 *
 * For cairnd's cache of compressed bodies (zcache.h) it has what
 * zconn.h has for deflate: a capture of the compressed output, splicing
 * a ready-made frame between two frames of the stream, and a maker of
 * such frames, each one complete, from an empty history.
 *
 * Levels come checked (zlevel.h decides them, and calls these).
 * Dependencies: zstdconn uses conn, zauto and zconn's inflate guard,
 * meter and capture type; none of them uses it.  Functions return 0 on
 * success and -1 with a message naming the peer in err.
 */
#ifndef CAIRN_ZSTDCONN_H
#define CAIRN_ZSTDCONN_H

#include <stddef.h>
#include <stdint.h>

#include "zconn.h"

struct buf;
struct cerr;
struct conn;
struct zstdconn_dict;
struct zstdconn_frame;

#define ZSTDCONN_WINDOWLOG	21	/* window: 2 MiB at most, each way */
#define ZSTDCONN_WINDOW		(1 << ZSTDCONN_WINDOWLOG)
#define ZSTDCONN_MAXLEVEL	19	/* highest level (no "ultra" ones) */

/*
 * Start zstd in both directions: push what is queued uncompressed, then
 * compress all later output at level (0: raw blocks); every input byte
 * not yet consumed is treated as compressed.  ratio: as zconn_start's
 * bound on how much lines may inflate (0: none).
 */
int		 zstdconn_start(struct conn *, int level, int ratio,
		    struct cerr *err);
/* Nonzero when zstd is on. */
int		 zstdconn_on(const struct conn *);
/*
 * Fix the output level (0: raw blocks) from the next frame on, ending
 * any automatic level.
 */
int		 zstdconn_set_level(struct conn *, int level, struct cerr *err);
/*
 * Automatic level (zauto.h), as zconn_set_auto: from now on the output
 * level is chosen between 0 and cap from what the connection measures
 * while it sends; a change ends the frame.  At level 0 a sample is
 * compressed now and then at level 1 apart from the stream, in a
 * context of its own (counted by zstdconn_memory).
 */
int		 zstdconn_set_auto(struct conn *, int cap, struct cerr *err);
/* The automatic level's memo, as zconn_recall and zconn_memo. */
struct zauto_memo;
int		 zstdconn_recall(struct conn *, const struct zauto_memo *m,
		    struct cerr *err);
int		 zstdconn_memo(const struct conn *, struct zauto_memo *m);
/*
 * Pin the output level to level until called with -1 (then the fixed
 * level applies again).  Output queued before the call is compressed
 * at the level it was queued under.  Does nothing without zstd.
 */
int		 zstdconn_pin_level(struct conn *, int level, struct cerr *err);
int		 zstdconn_level(const struct conn *);	/* current, 0: none */
/* Bytes the connection's zstd contexts hold now (both ways). */
size_t		 zstdconn_memory(const struct conn *);

/*
 * Capture: fn(arg, p, n) sees every compressed byte made from now on,
 * as it is made (fn NULL: none), as zconn_set_capture.  A cache keeps a
 * body's frame so: started right after a frame's end (conn_flush_full)
 * and stopped right after the next one, it saw one complete frame.
 */
void		 zstdconn_set_capture(struct conn *, zconn_capture_fn,
		    void *arg);

/*
 * Send a ready-made complete zstd frame (a cache entry) in pieces:
 * only between frames, right after conn_flush_full() with nothing
 * queued since; then zstdconn_splice_end(), which counts the raw plain
 * bytes the frame stood for, made at level.  Frames concatenate: the
 * stream's next output starts a frame of its own.
 */
int		 zstdconn_splice(struct conn *, const void *, size_t,
		    struct cerr *err);
int		 zstdconn_splice_end(struct conn *, uint64_t raw, int level,
		    struct cerr *err);

/*
 * A dictionary (docs/protocol.md section 9.3): zstd's format, as
 * ZDICT_trainFromBuffer and "zstd --train" write it (a header with a
 * nonzero id, entropy tables, content), of at most ZSTDCONN_DICTMAX
 * bytes.  zstdconn_dict_new copies and checks it (its tables must
 * load); the encoder's digested form of each level is made at the
 * first frame of that level and kept until zstdconn_dict_free, which
 * only the owner calls, after every connection using it is closed.
 * zstdconn_dict_memory: the bytes it holds now.
 */
#define ZSTDCONN_DICTMAX	(1024 * 1024)
#define ZSTDCONN_DICTSIZE	(1024 * 1024)	/* trained */
struct zstdconn_dict *zstdconn_dict_new(const void *p, size_t len,
		    struct cerr *err);
unsigned	 zstdconn_dict_id(const struct zstdconn_dict *);
const void	*zstdconn_dict_data(const struct zstdconn_dict *, size_t *len);
size_t		 zstdconn_dict_memory(const struct zstdconn_dict *);
/*
 * The dictionary's bytes as one zstd frame of their own, made without
 * a dictionary at ZSTDCONN_DICTLEVEL: made at the first call and kept,
 * so that a server that makes it before it forks sends it to every
 * session for no CPU (zstdconn_splice).  NULL with err on failure.
 * Level 3 makes a trained 112 KiB dictionary 51 KB in under a
 * millisecond; level 19 saves 6 KB more for 30 ms.
 */
#define ZSTDCONN_DICTLEVEL	3
const void	*zstdconn_dict_frame(struct zstdconn_dict *, size_t *len,
		    struct cerr *err);
/*
 * Make the encoder's digested form of level now, as its first frame
 * would: a server that does so before it forks shares it with every
 * session (for a 1 MiB dictionary, 150 ms and 20 MB at level 19, which
 * each session would otherwise pay).  0, or -1 with err.
 */
int		 zstdconn_dict_prepare(struct zstdconn_dict *, int level,
		    struct cerr *err);
void		 zstdconn_dict_free(struct zstdconn_dict *);	/* NULL ok */
/*
 * Train a dictionary of at most cap bytes into dict from n samples
 * laid end to end at samples (sizes[i] bytes each); *len its size.
 */
int		 zstdconn_dict_train(const void *samples, const size_t *sizes,
		    unsigned n, void *dict, size_t cap, size_t *len,
		    struct cerr *err);
/*
 * From the next frame on: the decoder takes frames made with d, and,
 * with encode, the frames this side makes are made with it (the small
 * ones at ZSTDCONN_DICTLEVEL at most; not raw blocks).  A client that
 * only sends requests decodes with it and no more: the digested form
 * it would make to encode costs more than its requests gain.  Both
 * peers call it at a point where neither has a frame open that the
 * other has not ended.  The decoder's change is safe from the thread
 * that asked: the read-ahead thread takes it at the next frame's start.
 */
int		 zstdconn_use_dict(struct conn *, struct zstdconn_dict *d,
		    int encode, struct cerr *err);
/* The id of the dictionary in use, 0: none. */
unsigned	 zstdconn_dict_used(const struct conn *);

/*
 * A maker of one such frame: data compressed alone, from an empty
 * history (or the dictionary d, NULL: none), at level (1 and up) with
 * the stream's window bound
 * (ZSTDCONN_WINDOW) and its other parameters.  zstdconn_frame_add
 * appends the output of len bytes at p to out (whose cap must allow a
 * compressed 256 KiB and more); with end nonzero the frame ends.  Make
 * a new maker for the next frame.
 */
struct zstdconn_frame *zstdconn_frame_new(int level, struct zstdconn_dict *d,
		    struct cerr *err);
int		 zstdconn_frame_add(struct zstdconn_frame *, const void *p,
		    size_t len, int end, struct buf *out, struct cerr *err);
void		 zstdconn_frame_free(struct zstdconn_frame *);	/* NULL ok */

#endif
