// SPDX-License-Identifier: GPL-2.0
/*
 * ccaas_kunit.ko: the suites of the kunit directory's test files as one
 * module, for a kernel built with KUnit. Load it after ccaas_core and the
 * CCA modules (and the in-tree dctcp, the differential suite's peer):
 * KUnit runs the suites as the module loads.
 */
#include <linux/module.h>

#ifdef CCAAS_HAVE_MODULE_IMPORT_NS_STRING
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
#else
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#endif
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas KUnit suites");
