/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * ccaas: congestion control as a service — generic netlink interface.
 *
 * The YAML specification beside this file (ccaas.yaml) is the source of
 * truth for this interface; keep the two in step.
 */
#ifndef _UAPI_LINUX_CCAAS_H
#define _UAPI_LINUX_CCAAS_H

#define CCAAS_FAMILY_NAME	"ccaas"
#define CCAAS_FAMILY_VERSION	1

/* Multicast group for policy and migration events. */
#define CCAAS_MCGRP_MONITOR	"monitor"

/* Longest CCA name, including the terminating NUL (TCP_CA_NAME_MAX). */
#define CCAAS_CCA_NAME_MAX	16

/*
 * enum ccaas_cca_feature - what a registered CCA declares about itself
 * @CCAAS_CCA_F_NEEDS_ECN: asks for ECN at the handshake (TCP_CONG_NEEDS_ECN)
 * @CCAAS_CCA_F_ECN_OK: may take over a socket that negotiated ECN
 * @CCAAS_CCA_F_NONECN_OK: may take over a socket without ECN (has a fallback)
 * @CCAAS_CCA_F_TRANSITIONAL: safe landing place for any socket
 * @CCAAS_CCA_F_CONG_CONTROL: implements cong_control (bypasses PRR/pacing)
 */
enum ccaas_cca_feature {
	CCAAS_CCA_F_NEEDS_ECN		= 1 << 0,
	CCAAS_CCA_F_ECN_OK		= 1 << 1,
	CCAAS_CCA_F_NONECN_OK		= 1 << 2,
	CCAAS_CCA_F_TRANSITIONAL	= 1 << 3,
	CCAAS_CCA_F_CONG_CONTROL	= 1 << 4,
};

/* A CCA version packed into a u32: major.minor.patch, 8 bits each below major. */
#define CCAAS_VERSION(maj, min, pat)	(((maj) << 16) | ((min) << 8) | (pat))
#define CCAAS_VERSION_MAJOR(v)		((v) >> 16)
#define CCAAS_VERSION_MINOR(v)		(((v) >> 8) & 0xff)
#define CCAAS_VERSION_PATCH(v)		((v) & 0xff)

enum {
	CCAAS_A_CCA_UNSPEC,
	CCAAS_A_CCA_NAME,		/* string, < CCAAS_CCA_NAME_MAX */
	CCAAS_A_CCA_VERSION,		/* u32, CCAAS_VERSION() */
	CCAAS_A_CCA_FEATURES,		/* u32, enum ccaas_cca_feature */
	CCAAS_A_CCA_MODULE,		/* string: owning kernel module */
	CCAAS_A_CCA_FLAGS,		/* u32: tcp_congestion_ops flags (TCP_CONG_*) */

	__CCAAS_A_CCA_MAX,
	CCAAS_A_CCA_MAX = (__CCAAS_A_CCA_MAX - 1)
};

enum {
	CCAAS_CMD_UNSPEC,
	CCAAS_CMD_CCA_GET,		/* do: one CCA by CCAAS_A_CCA_NAME; dump: all */

	__CCAAS_CMD_MAX,
	CCAAS_CMD_MAX = (__CCAAS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_CCAAS_H */
