/*
 * Runs the rdma-cc ns-3 TestSuites (ns-3's own test-runner, linked with our suites).
 * Usage: test-runner [--list] [--suite=NAME] [--verbose] ... (see ns3::TestRunner).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
