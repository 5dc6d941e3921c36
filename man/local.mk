# man/: mdoc manual pages, installed as they are.
dist_man_MANS += \
	man/cairn-bench.1 \
	man/fsdiff.1 \
	man/ktcheck.1 \
	man/lapply.1 \
	man/lcksum.1 \
	man/lcreate.1 \
	man/lfdiff.1 \
	man/lmerge.1 \
	man/lsort.1 \
	man/repo.1 \
	man/twhich.1 \
	man/cairnd.conf.5 \
	man/transcript.5 \
	man/cairnd.8 \
	man/cairn-mkca.8 \
	man/cairn-publish.8
# tests/integ/t-man-lint.sh (tests/local.mk) lints every page listed here.

# cairn-ra(8): the client workflow command (client/ra.mk).
dist_man_MANS += man/cairn-ra.8

# cairn-replicate(8): keeping a replica in step (server/local.mk).
dist_man_MANS += man/cairn-replicate.8

# cairn-sign(8): keys and signatures of releases (server/local.mk).
dist_man_MANS += man/cairn-sign.8
