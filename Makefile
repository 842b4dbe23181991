# SPDX-License-Identifier: GPL-2.0
#
# ccaas top-level Makefile.
#
#   make                      modules for the running kernel (or KDIR=/ KERNELRELEASE=)
#   make modules-all          modules for every pinned kernel, into build/<release>/
#   make ccactl               the userspace tool
#   make install-tools        ccactl, ccaas-service, ccaas-metrics, the systemd units, man pages
#   make deb                  the Debian packages ccaas and ccaas-dkms, into build/deb/
#   make check                everything the tests need, then every test suite
#   make check KERNELS=6.12 T=dctcp    one kernel line, tests matching a pattern
#   make check-full           the same without the vm-lines tiers (no budget)
#   make modules-debug        modules for the sanitizer kernel (built if needed)
#   make bench                benchmarks in VMs (bench/README.md; bench/run.sh -h)
#   make fuzz                 the netlink fuzzer for longer (tests/vm/90-fuzz.sh):
#                             FUZZ_SECONDS (1800), FUZZ_MESSAGES, FUZZ_SEED, KERNELS
#   make soak SOAK_SECONDS=600 [SOAK_SEED=N]   the race soak, longer (sanitizer kernel)
#   make coverage [T=PATTERN] line and branch coverage of kmod/ by KUnit and the
#                             VM files (gcov, sanitizer kernel; scripts/coverage.sh)

include scripts/versions.conf

KERNELRELEASE_HOST := $(shell uname -r)
KERNELRELEASE ?= $(KERNELRELEASE_HOST)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
PWD := $(CURDIR)
VERSION ?= $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PINNED := $(KVER_6_1) $(KVER_6_12) $(KVER_7_3)

# Lines pinned with a KROOT_<n>_<m> suite build inside a Debian root of that
# suite (scripts/buildroot.sh), with the same paths as here; the others on
# the host.
ROOTED := $(foreach v,$(filter KROOT_%,$(.VARIABLES)),$(KVER_$(v:KROOT_%=%)))
kmake_of = $(if $(filter $1,$(ROOTED)),scripts/buildroot.sh $1 -- make,$(MAKE))

.PHONY: all modules modules-all modules-debug clean ccactl deb check check-full checkpatch install install-tools bench demo fuzz soak coverage

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# The headers to build against: Debian's package (on the host or in the
# line's build root), or for the sanitizer
# kernel (KVER_DEBUG) its build tree, made by scripts/debug-kernel.sh.
kdir_of = $(if $(filter $(KVER_DEBUG),$1),$(shell scripts/debug-kernel.sh | sed -n 's/^KDIR=//p'),/usr/src/linux-headers-$1)

# Out-of-tree builds write next to the sources, so each kernel gets its own
# copy of the kernel sources under build/<release>/.
KSRC := Kbuild kmod include kunit
modules-all: $(addprefix build/,$(addsuffix /.built,$(PINNED)))
modules-debug: build/$(KVER_DEBUG)/.built

build/%/.built: FORCE
	@mkdir -p build/$*
	@rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '*.cmd' \
		--exclude '*.mod*' --exclude 'compat-generated.h' $(KSRC) build/$*/ 2>/dev/null || \
		rsync -a $(KSRC) build/$*/
	+$(call kmake_of,$*) -C $(call kdir_of,$*) M=$(PWD)/build/$* W=$(W) \
		CCAAS_TEST_MODULES=m $(if $(filter $(KVER_DEBUG),$*),CCAAS_KUNIT_MODULE=m) modules
	@touch $@

FORCE:

ccactl:
	$(MAKE) -C tools/ccactl VERSION=$(VERSION)

check:
	scripts/check.sh

# The full tier: every VM file on every line its group runs on, the
# vm-alone ones on the oldest and newest (make check runs some on one
# line only, `# vm-lines:`); no time budget.
check-full:
	CCAAS_VM_ALL_LINES=1 scripts/check.sh

demo:
	scripts/demo.sh

# The fuzzer's VM file, for FUZZ_SECONDS per worker (the file's time limit
# grows to fit); a seed from the clock unless FUZZ_SEED is given.
FUZZ_SECONDS ?= 1800
FUZZ_MESSAGES ?= 100000000
FUZZ_SEED ?= $(shell date +%s)
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_MESSAGES=$(FUZZ_MESSAGES) FUZZ_SEED=$(FUZZ_SEED) \
		CCAAS_VM_FILE_TIMEOUT_MIN=$$(($(FUZZ_SECONDS) + 300)) \
		SUITES=vm T=90-fuzz scripts/check.sh

# The race soak of tests/vm/95-soak.sh (1 min in `make check-full`, not in
# `make check`) for
# SOAK_SECONDS, on each kernel line. The guest reads the duration and seed
# from build/soak.env, there for this run only; the file's time limit is
# the soak plus the 150 s its setup and checks may take (SOAK_RESERVE).
SOAK_SECONDS ?= 600
soak:
	@mkdir -p build
	@trap 'rm -f build/soak.env' EXIT; \
	{ echo SOAK_SECONDS=$(SOAK_SECONDS); \
	  $(if $(SOAK_SEED),echo SOAK_SEED=$(SOAK_SEED);) } > build/soak.env; \
	CCAAS_VM_FILE_TIMEOUT_MIN=$$(($(SOAK_SECONDS) + 150)) SUITES=vm T=95-soak \
		scripts/check.sh

checkpatch:
	T=checkpatch tests/build/run.sh

# Three VMs side by side unless T names the files.
COVERAGE_GROUPS := '@(0|1|2)[0-9]-*' '@(3|4|5|6)[0-9]-*' '@(7|8|9)[0-9]-*'
coverage:
	scripts/coverage.sh $(if $(T),-t '$(T)',$(addprefix -t ,$(COVERAGE_GROUPS)))

bench:
	bench/run.sh

# Userspace and modules. DKMS installs the modules alone; with it, run
# `make install-tools` for ccactl, ccaas-service, the unit and the man pages.
# The unit goes where systemd looks for it under PREFIX: the system's unit
# directory (systemd's pkg-config file; /lib/systemd/system on bookworm)
# for PREFIX=/usr, else PREFIX/lib/systemd/system, which systemd also reads
# (/usr/local/lib/systemd/system for the default PREFIX=/usr/local).
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSTEM_UNITDIR = $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
UNITDIR ?= $(if $(filter /usr,$(PREFIX:%/=%)),$(SYSTEM_UNITDIR),$(PREFIX)/lib/systemd/system)
ETC_CCAAS := scope.conf policy.conf modules
install: modules install-tools
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install

# /etc/ccaas gets the commented defaults of deploy/etc-ccaas (no rule: the
# kernel's CCA for every connection), never over a file already there.
install-tools:
	$(MAKE) -C tools/ccactl install VERSION=$(VERSION) PREFIX=$(PREFIX) \
		SBINDIR=$(SBINDIR) MANDIR=$(MANDIR)
	install -D -m 0755 deploy/ccaas-service $(DESTDIR)$(SBINDIR)/ccaas-service
	install -D -m 0755 deploy/ccaas-metrics $(DESTDIR)$(SBINDIR)/ccaas-metrics
	install -D -m 0644 deploy/ccaas-service.8 $(DESTDIR)$(MANDIR)/man8/ccaas-service.8
	install -D -m 0644 deploy/ccaas-metrics.8 $(DESTDIR)$(MANDIR)/man8/ccaas-metrics.8
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/ccaas-service|$(SBINDIR)/ccaas-service|' \
		deploy/systemd/ccaas.service > $(DESTDIR)$(UNITDIR)/ccaas.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ccaas.service
	sed 's|/usr/sbin/ccaas-metrics|$(SBINDIR)/ccaas-metrics|' \
		deploy/systemd/ccaas-metrics.service > $(DESTDIR)$(UNITDIR)/ccaas-metrics.service
	install -m 0644 deploy/systemd/ccaas-metrics.timer $(DESTDIR)$(UNITDIR)/
	chmod 0644 $(DESTDIR)$(UNITDIR)/ccaas-metrics.service
	install -d -m 0755 $(DESTDIR)/etc/ccaas
	for f in $(ETC_CCAAS); do \
		[ -e $(DESTDIR)/etc/ccaas/$$f ] || \
			install -m 0644 deploy/etc-ccaas/$$f $(DESTDIR)/etc/ccaas/$$f || exit 1; \
	done

# The Debian packages ccaas and ccaas-dkms (debian/), built by
# dpkg-buildpackage in a copy of the tree under build/deb/, so that what
# it writes next to the tree (the .debs, .dsc, .changes) lands in
# build/deb/ too; then lintian, whose errors and warnings fail the target.
deb:
	scripts/deb.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null
	rm -rf build
	$(MAKE) -C tools/ccactl clean
