# cairn-ra: the client workflow command and its systemd units (its
# tests are listed in tests/local.mk).
# Included after server/local.mk, whose unit lists it appends to.
client/cairn-ra: $(srcdir)/client/cairn-ra.in Makefile
	$(AM_V_GEN)$(MKDIR_P) client && \
	$(path_subst) <$(srcdir)/client/cairn-ra.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
client/cairn-ra.service: $(srcdir)/client/cairn-ra.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) client && \
	$(path_subst) <$(srcdir)/client/cairn-ra.service.in >$@.tmp && \
	mv $@.tmp $@
client/cairn-ra.timer: $(srcdir)/client/cairn-ra.timer.in Makefile
	$(AM_V_GEN)$(MKDIR_P) client && \
	$(path_subst) <$(srcdir)/client/cairn-ra.timer.in >$@.tmp && \
	mv $@.tmp $@
sbin_SCRIPTS = client/cairn-ra
if INSTALL_SYSTEMD_UNIT
systemdsystemunit_DATA += client/cairn-ra.service client/cairn-ra.timer
else
noinst_DATA += client/cairn-ra.service client/cairn-ra.timer
endif
CLEANFILES += client/cairn-ra client/cairn-ra.service client/cairn-ra.timer
EXTRA_DIST += client/cairn-ra.in client/cairn-ra.service.in \
	client/cairn-ra.timer.in contrib/cairn-ra.cron \
	contrib/cairn-ra.default
