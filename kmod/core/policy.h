/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CCAAS_POLICY_H
#define _CCAAS_POLICY_H

struct ccaas_net;

/* Per-netns policy state, inside struct ccaas_net. */
struct ccaas_policy_state {
	int unused;
};

int ccaas_policy_net_init(struct ccaas_net *cn);
void ccaas_policy_net_exit(struct ccaas_net *cn);

#endif /* _CCAAS_POLICY_H */
