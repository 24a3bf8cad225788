/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaScenario's options: the shared options declared, parsed and resolved (the scheme's
// marking, PFC and INT), and what the run derived from them (setup, config.json).
#include "rdma-scenario.h"

#include "rdma-cc-error.h"
#include "run-control.h"

#include "ns3/roce-header.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rust/cxx.h"

namespace ns3
{

namespace
{

/// The help of an option's `auto`: how every scheme derives it (Rust's words).
std::string
AutoHelp(const char* field)
{
    return rdmacc::OrConfigFatal("RdmaScenario",
                                 [&] { return std::string(rdmacc_ffi::scheme_auto_help(field)); });
}

/// --bufMax, --pfc and --ecn: what a priority's switch queues do (tail drop, PFC, marking; the
/// per-priority options: docs/classes.md).
void
DeclareClassOptions(rdmacc::Options& o)
{
    o.Bytes("bufMax",
            "auto",
            "egress queue limit of the data priority when lossy (tail drop)",
            rdmacc::Options::Range::AtLeast(1),
            AutoHelp("buf_max"))
        .Text("pfc",
              "auto",
              "the lossless (PFC) priorities: true/1 (the data priority, --priority), "
              "false/0/none, all, or a list of priorities 3,4 (a lone 0 or 1 is the boolean "
              "form); the other priorities are lossy (tail drop at --bufMax); auto: " +
                  AutoHelp("pfc") + " (the data priority)")
        .Text("ecn",
              "all",
              "the priorities whose switch queues mark ECN with --kmin/--kmax/--pmax: all, "
              "none, true/1 (the data priority), false/0 or a list of priorities 3,4; the "
              "others never mark (their queue limit and K_fs stay)");
}

} // namespace

RdmaScenario::RdmaScenario(const std::string& n, const std::string& description) :
    m_name(n),
    m_opts(n, description)
{
    // the fabric, the switch and the outputs; every NIC parameter comes from Rust's tables
    m_opts.Rate("rate", "100Gbps", "rate of every link")
        .Duration("delay", "1us", "one-way propagation delay of every link")
        .Count("seed",
               1,
               "random seed (ns-3 run number): RED draws, random arrivals and sizes (the ECMP "
               "mapping of flows to paths is --ecmpSeed's)",
               rdmacc::Options::Range::Closed(1, 4294967295.0))
        .Text("out", "results/" + n, "output directory")
        .Bytes("kmin",
               "auto",
               "ECN marking threshold K_min of the data queue",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_min"))
        .Bytes("kmax",
               "auto",
               "ECN marking: every ECT packet is marked from K_max on",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_max"))
        .RealAuto("pmax",
                  "ECN marking probability just below K_max",
                  rdmacc::Options::Range::Closed(0, 1),
                  AutoHelp("p_max"))
        .Bytes("kfs",
               "auto",
               "WRED drop threshold of Not-ECT (LDCP first-RTT) packets on lossy runs",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_fs"))
        .Text("ecnMap",
              "none",
              "per-link-speed marking GBPS:KMIN:KMAX:PMAX,... (bytes; a port uses the entry of "
              "the largest speed not above its rate, else --kmin/--kmax/--pmax), as deployed "
              "switches set it; none: --kmin/--kmax/--pmax everywhere");
    DeclareClassOptions(m_opts);
    m_opts
        .BoolAuto("int",
                  "INT for HPCC: every switch egress appends a hop record (queue, bytes sent, "
                  "time, line rate) to the data packets, the receiver echoes them in its ACKs; "
                  "data packets and ACKs carry " +
                      std::to_string(rdmacc_ffi::int_bytes_on_wire()) +
                      " more bytes on the wire (ns3::SwitchNode::Int)",
                  AutoHelp("int"))
        .Duration("sample",
                  "1us",
                  "queue sampling interval (queue.csv, queue_avg_bytes)",
                  rdmacc::Options::Range::Above(0))
        .Duration("limit",
                  "1s",
                  "simulated-time limit: a run cut by it reports complete=false and fails",
                  rdmacc::Options::Range::Above(0))
        .Choice("eventOrder",
                "auto",
                {"auto", "insertion", "canonical"},
                "order of the events of one time stamp: insertion (ns-3's: the order they were "
                "scheduled in) or canonical (ns3::CanonicalScheduler: by the node that scheduled "
                "them and its count of events scheduled, the same in one process and in a "
                "distributed run); auto: canonical for a distributed (MPI) run, else insertion")
        .Bool("flowTrace", false, "write flows.csv: every flow's window, rate and srtt over time")
        .Duration("flowSample",
                  "0",
                  "with --flowTrace: sample every flow at this interval (0: a row whenever a "
                  "flow's window, rate or srtt changes)")
        .AddSwitchParams(
            {"buffer", "headroom", "allowHeadroomOverrun", "xoffBeta", "xoffStatic", "ecmpSeed"})
        .AddRcmParams()
        .AddNicParams();
    // attributes the fabric takes from the options above: a --ns3:: form of them is refused,
    // naming the option
    m_opts.Covers("ns3::QbbNetDevice::DataRate", "rate")
        .Covers("ns3::QbbChannel::Delay", "delay")
        .Covers("ns3::SwitchNode::PfcPriorities", "pfc")
        .Covers("ns3::SwitchNode::EgressLimit", "bufMax")
        .Covers("ns3::SwitchNode::MmuMtu", "mtu")
        .Covers("ns3::SwitchNode::Int", "int");
}

RdmaScenario::~RdmaScenario() = default;

rdmacc::Options&
RdmaScenario::Opts()
{
    return m_opts;
}

const rdmacc::Options&
RdmaScenario::Opts() const
{
    return m_opts;
}

std::string
RdmaScenario::Cc() const
{
    return m_opts.GetText("cc");
}

uint32_t
RdmaScenario::Seed() const
{
    return static_cast<uint32_t>(m_opts.GetCount("seed"));
}

std::string
RdmaScenario::Out() const
{
    const std::string base = m_rank > 0 ? m_opts.GetText("out") + "/rank-" + std::to_string(m_rank)
                                        : m_opts.GetText("out");
    return m_case.empty() ? base : base + "/" + m_case;
}

void
RdmaScenario::SetCase(const std::string& name)
{
    m_case = name;
}

void
RdmaScenario::SetQuiet(bool quiet)
{
    m_quiet = quiet;
}

uint64_t
RdmaScenario::Mtu() const
{
    return m_opts.GetBytes("mtu");
}

uint64_t
RdmaScenario::RateBps() const
{
    return m_opts.GetRate("rate");
}

bool
RdmaScenario::Lossless() const
{
    return m_lossless;
}

uint8_t
RdmaScenario::PfcMask() const
{
    return m_pfcMask;
}

uint8_t
RdmaScenario::EcnMask() const
{
    return m_ecnMask;
}

bool
RdmaScenario::MultiClass() const
{
    return std::any_of(
        m_flowPrio.begin(), m_flowPrio.end(), [&](uint8_t p) { return p != DataPriority(); });
}

bool
RdmaScenario::IntOn() const
{
    return m_int;
}

rdmacc::JsonObject
RdmaScenario::Setup() const
{
    const std::string preset = Cc().substr(0, Cc().find('-')) + "Preset";
    rdmacc::JsonObject j;
    j.Str("scheme", Cc())
        .Str("preset", m_opts.Has(preset) ? m_opts.GetText(preset) : "none")
        .UInt("rate_bps", RateBps())
        .Int("delay_ns", m_opts.GetTime("delay").GetNanoSeconds())
        .Bool("pfc", Lossless())
        .UInt("priority", DataPriority());
    if ((m_pfcMask != 0 && m_pfcMask != (1u << DataPriority())) || m_ecnMask != 0xFF)
    {
        // a run whose PFC or marking is not the one-class form (the data priority's, every
        // priority marking) records its classes' (the others keep the setup they had)
        j.Str("pfc_priorities", std::string(rdmacc_ffi::priority_list(m_pfcMask)))
            .Str("ecn_priorities", std::string(rdmacc_ffi::priority_list(m_ecnMask)));
    }
    j.UInt("mtu_bytes", Mtu())
        .UInt("buffer_bytes", m_opts.GetBytes("buffer"))
        .Bool("int", m_int)
        .UInt("seed", Seed());
    return j;
}

rdmacc::JsonObject
RdmaScenario::Resolved() const
{
    rdmacc::JsonObject j = Setup();
    j.UInt("k_min_bytes", kMinB)
        .UInt("k_max_bytes", kMaxB)
        .UInt("k_fs_bytes", kFsB)
        .UInt("buf_max_bytes", bufMaxB)
        .Num("p_max", pMax)
        .Str("fabric",
             m_fabricText.empty()
                 ? m_opts.GetAsText("rate") + " links, " + m_opts.GetAsText("delay") + " delay"
                 : m_fabricText)
        .UInt("hosts", fabric.hosts.GetN())
        .UInt("switches", fabric.switches.size())
        .UInt("flows", m_nextFlowId);
    if (fabric.hosts.GetN() > 1)
    {
        j.Int("base_rtt_ns", BaseRtt(1, 0).GetNanoSeconds());
    }
    return j;
}

uint8_t
RdmaScenario::DataPriority() const
{
    return m_opts.DataPriority();
}

RdmaScenario::IntSummary
RdmaScenario::IntTotals() const
{
    IntSummary t;
    bool any = false;
    for (const auto& nic : nics)
    {
        const RdmaNic::IntStats n = nic->GetIntStats();
        if (n.acks == 0)
        {
            continue;
        }
        t.hopsMin = any ? std::min(t.hopsMin, n.hopsMin) : n.hopsMin;
        t.hopsMax = std::max(t.hopsMax, n.hopsMax);
        t.acks += n.acks;
        t.hopMismatch += n.hopMismatch;
        t.nonMonotone += n.nonMonotone;
        any = true;
    }
    return t;
}

uint64_t
RdmaScenario::PauseFrames() const
{
    return m_monitor ? m_monitor->PauseFrames() : 0;
}

uint64_t
RdmaScenario::PauseFrames(uint8_t prio) const
{
    return m_monitor ? m_monitor->PauseFrames(prio) : 0;
}

Time
RdmaScenario::PausedTime(uint8_t prio) const
{
    Time t;
    for (const auto& s : fabric.switches)
    {
        for (uint32_t port = 0; port < s->GetNPorts(); port++)
        {
            t += s->GetPort(port)->GetPausedTime(prio);
        }
    }
    for (const auto& d : fabric.hostDevices)
    {
        t += d->GetPausedTime(prio);
    }
    return t;
}

uint64_t
RdmaScenario::HostRateBps(uint32_t host) const
{
    return host < fabric.hostDevices.size() ? fabric.HostRate(host).GetBitRate() : RateBps();
}

double
RdmaScenario::PayloadLimit() const
{
    return PayloadLimitAt(HostRateBps(m_bottleneckHost));
}

double
RdmaScenario::LinkPayloadLimit() const
{
    return rdmacc::PayloadLimitBps(HostRateBps(m_bottleneckHost), Mtu());
}

double
RdmaScenario::PayloadLimitAt(uint64_t rateBps) const
{
    // INT: every data frame is IntBytes() longer on the wire
    return rdmacc::PayloadLimitBps(rateBps, Mtu(), IntBytes());
}

void
RdmaScenario::SetFabricDescription(const std::string& text)
{
    m_fabricText = text;
}

void
RdmaScenario::Parse(int argc, char** argv)
{
    m_opts.Parse(argc, argv);
    // the event order (run control's choice), before the simulator's first use
    rdmacc::ChooseScheduler(m_opts.GetText("eventOrder"));
    // --pfc and --ecn: priority sets (Rust's rules; errors name the option)
    const std::string pfcText =
        m_opts.GetText("pfc") == "auto"
            ? (rdmacc::OrConfigFatal("command line",
                                     [&] { return rdmacc_ffi::scheme_lossless_by_default(Cc()); })
                   ? "true"
                   : "false")
            : m_opts.GetText("pfc");
    m_pfcMask = rdmacc::OrConfigFatal(
        "command line", [&] { return rdmacc_ffi::priority_set(pfcText, DataPriority(), "--pfc"); });
    m_ecnMask = rdmacc::OrConfigFatal(
        "command line",
        [&] { return rdmacc_ffi::priority_set(m_opts.GetText("ecn"), DataPriority(), "--ecn"); });
    m_lossless = (m_pfcMask >> DataPriority()) & 1u;
    m_int = m_opts.IsAuto("int")
                ? rdmacc::OrConfigFatal("command line",
                                        [&] { return rdmacc_ffi::scheme_needs_int(Cc()); })
                : m_opts.GetBool("int");
    // the scheme's marking (the scheme's preset may have its own: DCQCN's hpcc-sim marks as
    // the HPCC simulator), the given options in place of the values it derives, checked
    // together, and its Not-ECT treatment: one Rust call on the values as parsed
    const std::string presetOpt = Cc().substr(0, Cc().find('-')) + "Preset";
    const std::string preset = m_opts.Has(presetOpt) ? m_opts.GetText(presetOpt) : "none";
    rdmacc_ffi::MarkingOptions given{};
    given.has_k_min = !m_opts.IsAuto("kmin");
    given.k_min = given.has_k_min ? m_opts.GetBytes("kmin") : 0;
    given.has_k_max = !m_opts.IsAuto("kmax");
    given.k_max = given.has_k_max ? m_opts.GetBytes("kmax") : 0;
    given.has_p_max = !m_opts.IsAuto("pmax");
    given.p_max = given.has_p_max ? m_opts.GetReal("pmax") : 0;
    given.has_k_fs = !m_opts.IsAuto("kfs");
    given.k_fs = given.has_k_fs ? m_opts.GetBytes("kfs") : 0;
    given.has_buf_max = !m_opts.IsAuto("bufMax");
    given.buf_max = given.has_buf_max ? m_opts.GetBytes("bufMax") : 0;
    // what the values not given follow: the given K_min, or the link (rate and delay)
    const std::string derivedFrom =
        given.has_k_min
            ? "--kmin=" + m_opts.GetAsText("kmin")
            : "--rate=" + m_opts.GetAsText("rate") + " and --delay=" + m_opts.GetAsText("delay");
    const rdmacc_ffi::ScenarioMarking sm = rdmacc::OrConfigFatal(
        "command line",
        [&]
        {
            return rdmacc_ffi::scenario_marking(Cc(),
                                                preset,
                                                RateBps(),
                                                m_opts.GetTime("delay").GetNanoSeconds(),
                                                rdmacc_ffi::data_frame_bytes(Mtu(), 0),
                                                given,
                                                derivedFrom);
        });
    kMinB = sm.marking.k_min;
    kMaxB = sm.marking.k_max;
    kFsB = sm.marking.k_fs;
    bufMaxB = sm.marking.buf_max;
    pMax = sm.marking.p_max;
    m_marking = std::make_unique<rdmacc_ffi::ScenarioMarking>(sm);
    const std::string map = m_opts.GetText("ecnMap");
    if (map != "none")
    {
        try
        {
            rdmacc_ffi::ecn_map_lookup(map, 0);
        }
        catch (const rust::Error& e)
        {
            rdmacc::ConfigFatal("command line",
                                "invalid --ecnMap = " + map + " (" + e.what() + ")");
        }
    }
    rdmacc::MakeOutputDir(Out());
}

} // namespace ns3
