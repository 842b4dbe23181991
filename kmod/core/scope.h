/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CCAAS_SCOPE_H
#define _CCAAS_SCOPE_H

struct ccaas_net;

/* Per-netns scope state, inside struct ccaas_net. */
struct ccaas_scope_state {
	int unused;
};

int ccaas_scope_net_init(struct ccaas_net *cn);
void ccaas_scope_net_exit(struct ccaas_net *cn);

#endif /* _CCAAS_SCOPE_H */
