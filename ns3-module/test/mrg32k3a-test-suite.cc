/*
 * Tests of rdmacc::Mrg32k3a, the switches' RED draws: the same numbers, bit for bit, as ns-3's
 * UniformRandomVariable on the same seed, run and stream (assigned and automatic), so that
 * replacing ns-3's object changed no result.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include <cstring>
#include <vector>

using namespace ns3;

namespace
{

/// Bits of a double (exact comparison, printed in hex when they differ).
uint64_t
Bits(double v)
{
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// 200 000 draws from each of 36 (seed, run, stream) combinations, seeds and runs set through
/// RngSeedManager as a run does, against ns-3's UniformRandomVariable; then the automatic
/// stream a SwitchNode takes when made, against the one a UniformRandomVariable made in its
/// place takes.
class Mrg32k3aTestCase : public TestCase
{
  public:
    Mrg32k3aTestCase() :
        TestCase("the numbers of ns-3's UniformRandomVariable, bit for bit: assigned streams "
                 "(36 combinations of seed, run and stream, 200 000 draws each) and automatic ones")
    {
    }

  private:
    void
    DoRun() override
    {
        const uint32_t oldSeed = RngSeedManager::GetSeed();
        const uint64_t oldRun = RngSeedManager::GetRun();
        const std::vector<uint32_t> seeds{1, 7, 4294944442u};
        const std::vector<uint64_t> runs{1, 2, 12345, (uint64_t{1} << 40) + 3};
        const std::vector<int64_t> streams{0, 5, (int64_t{1} << 62) + 11};
        for (uint32_t seed : seeds)
        {
            for (uint64_t run : runs)
            {
                for (int64_t stream : streams)
                {
                    RngSeedManager::SetSeed(seed);
                    RngSeedManager::SetRun(run);
                    Ptr<UniformRandomVariable> uv = CreateObject<UniformRandomVariable>();
                    uv->SetStream(stream);
                    rdmacc::Mrg32k3a ours(seed, rdmacc::Mrg32k3a::ASSIGNED_STREAMS + stream, run);
                    int differ = 0;
                    int first = -1;
                    for (int i = 0; i < 200000; i++)
                    {
                        if (Bits(ours.Next()) != Bits(uv->GetValue()) && differ++ == 0)
                        {
                            first = i;
                        }
                    }
                    NS_TEST_ASSERT_MSG_EQ(differ,
                                          0,
                                          "draws of seed " << seed << " run " << run << " stream "
                                                           << stream << " differ, first at "
                                                           << first);
                }
            }
        }
        // automatic streams: what the next ns-3 object takes, ours takes the same way
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(9);
        for (int k = 0; k < 3; k++)
        {
            const uint64_t next = RngSeedManager::GetNextStreamIndex();
            Ptr<UniformRandomVariable> uv = CreateObject<UniformRandomVariable>();
            rdmacc::Mrg32k3a ours(3, next + 1, 9);
            int differ = 0;
            for (int i = 0; i < 1000; i++)
            {
                differ += Bits(ours.Next()) != Bits(uv->GetValue());
            }
            NS_TEST_ASSERT_MSG_EQ(differ, 0, "draws of automatic stream " << next + 1 << " differ");
        }
        RngSeedManager::SetSeed(oldSeed);
        RngSeedManager::SetRun(oldRun);
    }
};

/// The suite.
class Mrg32k3aTestSuite : public TestSuite
{
  public:
    Mrg32k3aTestSuite() :
        TestSuite("rdma-cc-mrg32k3a")
    {
        AddTestCase(new Mrg32k3aTestCase);
    }
};

static Mrg32k3aTestSuite g_mrg32k3aTestSuite; //!< registers the suite

} // namespace
