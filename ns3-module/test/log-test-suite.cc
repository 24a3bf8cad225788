/*
 * Tests of the Rust crates' logging through NS_LOG: levels enabled with LogComponentEnable
 * after start-up reach Rust, the level mapping, and nothing is written when disabled.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <iostream>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// Captures std::clog (where NS_LOG writes) while alive.
class ClogCapture
{
  public:
    ClogCapture() :
        m_old(std::clog.rdbuf(m_text.rdbuf()))
    {
    }

    ~ClogCapture()
    {
        std::clog.rdbuf(m_old);
    }

    /// \return the lines containing `what`
    uint64_t
    Count(const std::string& what) const
    {
        std::istringstream in(m_text.str());
        uint64_t n = 0;
        for (std::string line; std::getline(in, line);)
        {
            n += line.find(what) != std::string::npos;
        }
        return n;
    }

    /// \return everything captured
    std::string
    Text() const
    {
        return m_text.str();
    }

  private:
    std::ostringstream m_text;
    std::streambuf* m_old;
};

/// 4 raw line-rate senders into one receiver through a SwitchNode with PFC on priority 3;
/// returns the switch's counters.
SwitchNode::Counters
RunPfcIncast(uint64_t headroom)
{
    FabricHelper fh;
    fh.SetPrintWarnings(false);
    fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    fh.SetSwitchAttribute("BufferSize", UintegerValue(1000000));
    fh.SetSwitchAttribute("Headroom", UintegerValue(headroom));
    // the LOG_WARN test overruns a too small headroom on purpose
    fh.SetSwitchAttribute("AllowHeadroomOverrun", BooleanValue(true));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(0x08));
    fh.SetQueuePriorities(0);
    Fabric fabric = fh.SingleSwitch(5);
    std::vector<Ptr<RawHost>> raw;
    for (uint32_t i = 0; i < 5; i++)
    {
        raw.push_back(CreateObject<RawHost>());
        raw.back()->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
    }
    for (uint32_t i = 1; i < 5; i++)
    {
        raw[i]->AddFlow(fabric.hosts.Get(0)->GetId(), 3, 1000000, Seconds(0), 100 + i);
    }
    Simulator::Run();
    SwitchNode::Counters c = fabric.switches[0]->GetCounters();
    Simulator::Destroy();
    return c;
}

/// Levels enabled by the program after the module was loaded reach Rust when the switch is
/// built; one line per MMU decision; disabling stops them.
class LogComponentEnableTestCase : public TestCase
{
  public:
    LogComponentEnableTestCase() :
        TestCase("LogComponentEnable reaches Rust: one debug line per PAUSE and RESUME, none "
                 "when disabled")
    {
    }

  private:
    void
    DoRun() override
    {
        LogComponentEnable("RdmaCcSwitch", LogLevel(LOG_LEVEL_DEBUG | LOG_PREFIX_FUNC));
        SwitchNode::Counters c{};
        {
            ClogCapture log;
            c = RunPfcIncast(32000);
            NS_TEST_ASSERT_MSG_GT(c.pauses, 0, "the incast pauses");
            NS_TEST_ASSERT_MSG_EQ(
                log.Count("RdmaCcSwitch:mmu(): PAUSE port "), c.pauses, log.Text().substr(0, 2000));
            NS_TEST_ASSERT_MSG_EQ(
                log.Count("RdmaCcSwitch:mmu(): RESUME port "), c.resumes, "one line per RESUME");
        }
        LogComponentDisable("RdmaCcSwitch", LOG_ALL);
        {
            ClogCapture log;
            const SwitchNode::Counters again = RunPfcIncast(32000);
            NS_TEST_ASSERT_MSG_EQ(again.pauses, c.pauses, "logging changes nothing");
            NS_TEST_ASSERT_MSG_EQ(log.Text(), "", "disabled: nothing written");
        }
        LogComponentDisable("RdmaCcSwitch", LOG_PREFIX_ALL);
    }
};

/// Rust's warn is ns-3's LOG_WARN: a headroom overrun is a warning, a PAUSE (debug) is not.
class LogLevelMappingTestCase : public TestCase
{
  public:
    LogLevelMappingTestCase() :
        TestCase("Rust warn maps to LOG_WARN: one line per headroom overrun, no debug lines")
    {
    }

  private:
    void
    DoRun() override
    {
        LogComponentEnable("RdmaCcSwitch", LogLevel(LOG_WARN | LOG_PREFIX_LEVEL));
        {
            ClogCapture log;
            const SwitchNode::Counters c = RunPfcIncast(3000);
            NS_TEST_ASSERT_MSG_GT(c.drops.headroom_overrun, 0, "headroom overruns");
            NS_TEST_ASSERT_MSG_EQ(log.Count("[WARN ] headroom overrun: port "),
                                  c.drops.headroom_overrun,
                                  "one warning per overrun");
            NS_TEST_ASSERT_MSG_EQ(log.Count("PAUSE"), 0, "debug lines stay off");
        }
        LogComponentDisable("RdmaCcSwitch", LogLevel(LOG_ALL | LOG_PREFIX_ALL));
    }
};

} // namespace

/// The Rust-logging test suite.
class LogTestSuite : public TestSuite
{
  public:
    LogTestSuite() :
        TestSuite("rdma-cc-log")
    {
        AddTestCase(new LogComponentEnableTestCase);
        AddTestCase(new LogLevelMappingTestCase);
    }
};

static LogTestSuite g_logTestSuite; //!< registers the suite
