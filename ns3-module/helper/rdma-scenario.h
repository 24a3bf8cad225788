/*
 * rdma-cc: the common part of the RDMA examples (ldcp-incast, ldcp-churn, ...): options,
 * a fabric of hosts with RdmaNics, flows, a run that ends when every flow is done, and the
 * shared outputs (summary.json, fct.csv, queue/pfc/drop CSVs). The class is the examples' one
 * entry; its pieces each do one job: rdma-scenario.cc (the options), rdma-scenario-fabric.cc
 * (fabric, NICs, flows), rdma-scenario-run.cc with run-control.h (limit, event scheduler,
 * progress, stop), scenario-traces.h (per-flow CSVs), rdma-scenario-flows.cc with
 * flow-store.h (the flow records: handed over as flows end, kept in a file, every rank's,
 * read back in flow-id order), rdma-scenario-results.cc with scenario-results.h (totals,
 * invariants, files, table).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_SCENARIO_H
#define RDMA_SCENARIO_H

#include "fabric-helper.h"
#include "fabric-monitor.h"
#include "flow-results.h"
#include "flow-store.h"
#include "rdma-cc-options.h"
#include "rdma-cc-output.h"
#include "scenario-results.h"
#include "scenario-traces.h"

#include "ns3/rdma-nic.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace rdmacc_ffi
{
struct ScenarioMarking;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * The common part of the RDMA examples: the shared options (fabric, switch, every NIC
 * parameter of the Rust tables, outputs), a single-switch fabric of hosts with RdmaNics, flows,
 * a run that ends when every flow is done (or at --limit, which says so), and the shared
 * outputs (summary.json, fct.csv, queue/pfc/drop CSVs). The switch's marking defaults to the
 * scheme's starting point (Rust's Scheme::marking; the README's option table and the options'
 * --help give each scheme's derivation); every option is parsed strictly (rdmacc::Options).
 */
class RdmaScenario
{
  public:
    /// \param name example name (default output directory results/NAME)
    /// \param description one paragraph for --help
    RdmaScenario(const std::string& name, const std::string& description);
    ~RdmaScenario();

    /// \return the options, to declare the example's own before Parse
    rdmacc::Options& Opts();
    /// \return the options (after Parse)
    const rdmacc::Options& Opts() const;
    /**
     * Parses the command line (shared and example options) and checks the shared ones
     * together; a bad value stops the program with one line naming the option (exit 2).
     */
    void Parse(int argc, char** argv);
    /**
     * Runs this scenario's outputs in OUT/`name` (call before Parse): an example that runs
     * several cases (schemes, topologies) one after the other keeps each case's files apart.
     */
    void SetCase(const std::string& name);
    /// Prints one line per run instead of the summary table (examples that run many cases).
    void SetQuiet(bool quiet);
    /// Builds `nHosts` hosts on one switch, with a NIC each (after Parse).
    void BuildSingleSwitch(uint32_t nHosts);
    /**
     * Builds any fabric (after Parse): `build` gets a FabricHelper set up from the options
     * (link rate and delay, switch buffer, PFC, marking) and returns the fabric it built;
     * every host gets a NIC. `maxPorts` is the most ports of any switch (for the options'
     * checks of headroom and buffer).
     */
    void BuildFabric(const std::function<Fabric(FabricHelper&)>& build, uint32_t maxPorts);
    /**
     * BuildFabric for a fabric of several link speeds (a topology file): the switch options
     * are checked against every switch's own port links (`switches`, one entry per switch,
     * e.g. from the topology before it is built) instead of `maxPorts` links of --rate and
     * --delay.
     */
    void BuildFabric(const std::function<Fabric(FabricHelper&)>& build,
                     const std::vector<rdmacc::Options::SwitchLinks>& switches);
    /**
     * Describes the fabric in the first line of the summary table instead of "--rate links,
     * --delay delay" (a fabric whose links do not all have --rate and --delay).
     */
    void SetFabricDescription(const std::string& text);
    /**
     * Sets the queue reported as the bottleneck: egress `port` of switch `s`, which leads to
     * host `receiverHost` (goodput is measured at that host).
     */
    void SetBottleneck(Ptr<SwitchNode> s, uint32_t port, uint32_t receiverHost);
    /// SetBottleneck at the port of switch `s` that leads toward host `receiverHost`.
    void SetBottleneckToward(Ptr<SwitchNode> s, uint32_t receiverHost);
    /**
     * SetBottleneckToward the receiver of the most bytes of the flows added so far (the lowest
     * host index among equals), at the switch its link leads to (after the flows are added).
     * \return that host's index
     */
    uint32_t SetBottleneckAtBusiestReceiver();
    /// \return the bottleneck's port on its switch (SetBottleneck, SetBottleneckToward)
    uint32_t BottleneckPort() const;
    /**
     * Makes Finish report FCT slowdowns per flow-size bucket (Rust: < 10 KB, 10-100 KB,
     * 100 KB-1 MB, 1-10 MB, >= 10 MB; p50/p95/p99): buckets.csv, the summary key
     * `slowdown_buckets` and a table after the summary.
     */
    void EnableSizeBuckets();
    /**
     * Makes Finish report the flows by class: `classOf[flow id]` names each flow's class, one
     * of `order` (e.g. hot and background). fct.csv gains a last column `class`; summary.json
     * the key `fct_by_class` (per class of `order`, then `all`: rdmacc::ClassFigures); a table
     * follows the summary. Call after the flows are added.
     */
    void SetFlowClasses(std::vector<std::string> classOf, std::vector<std::string> order);
    /**
     * Makes Finish report the flows by size class as the RCM paper's Fig. 9 (decimal units):
     * summary.json's key `fct_by_size` (`all`, `mice` below 1 MB, `medium` 1-10 MB,
     * `elephants` above 10 MB: rdmacc::ClassFigures) and a table after the summary.
     */
    void EnableSizeClasses();
    /**
     * \return message bytes no flow can send within `duration` even at the --rate line rate:
     *         the size of a flow meant to last a whole RunFor
     */
    uint64_t OutlastingBytes(Time duration) const;
    /**
     * Samples every flow's delivered bytes every `every` into rates.csv
     * (`time_ns,flow_id,delivered_bytes,rate_bps`; the rate over the interval that ends at
     * time_ns) and keeps the samples for DeliveredAt. Call before Run.
     */
    void EnableRateSeries(Time every);
    /// \return bytes flow `flowId` had delivered at the rate sample taken at `t` (the latest
    ///         sample at or before `t`; 0 before the first)
    uint64_t DeliveredAt(uint32_t flowId, Time t) const;
    /// \return bit/s flow `flowId` delivered between the rate samples at `from` and `to`
    double RateBetween(uint32_t flowId, Time from, Time to) const;
    /**
     * Adds a flow between host indexes; returns its flow id. Its bytes travel from `srcHost`
     * to `dstHost` whatever the operation: with RdmaOp::READ, `dstHost` (the requester) posts
     * it at `start` and `srcHost` (the responder) sends the READ responses; its ideal FCT
     * counts the READ request's trip and no ACK (docs/operations.md). A READ in a distributed
     * run (SetDistributed) stops the program (exit 2). `priority` is the flow's data priority
     * (traffic class) 0-7; -1 (the default): DataPriority(). The flow is lossless when its
     * priority is one of --pfc's, and its queues mark when it is one of --ecn's.
     */
    uint32_t AddFlow(uint32_t srcHost,
                     uint32_t dstHost,
                     uint64_t bytes,
                     Time start,
                     int priority = -1,
                     RdmaOp op = RdmaOp::WRITE);

    /// AddFlow on DataPriority() with operation `op`
    uint32_t
    AddFlow(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start, RdmaOp op)
    {
        return AddFlow(srcHost, dstHost, bytes, start, -1, op);
    }
    /**
     * Runs until every flow is done or --limit. When the last flow receives its first ACK or
     * NACK (every first RTT is over), the switch's exact egress maxima restart: they then
     * report the stable-stage queue.
     */
    void Run(uint32_t bottleneckPort = 0);
    /**
     * Runs for `duration` of simulated time exactly (an experiment over a fixed time: flows
     * still sending at its end are expected, and not a failure of the run's invariants; every
     * other invariant holds). The bottleneck is the one SetBottleneck gave.
     */
    void RunFor(Time duration);
    /**
     * Writes summary.json (shared keys, then `extra`'s), fct.csv and the fabric CSVs, and prints
     * a summary table. `bottleneckPort` is the switch port whose queue is reported.
     */
    void Finish(uint32_t bottleneckPort, const rdmacc::JsonObject& extra);
    /// Finish with the bottleneck SetBottleneck gave.
    void Finish(const rdmacc::JsonObject& extra);
    /**
     * \return the exit status of the run: 0 when every invariant Finish checked holds, 3
     *         otherwise (incomplete run, bytes not conserved, a flow below its FCT lower bound,
     *         a drop on a lossless priority, a control-frame drop, goodput above the wire
     *         limit, switch accounting)
     */
    int ExitStatus() const;

    /**
     * \return the record of every flow, in flow-id order, with its ideal FCT: those the NICs
     *         handed over as their flows ended (kept in a temporary file, not in memory) and
     *         the NICs' others. The vector holds a record per flow: Finish reads them one at a
     *         time instead. Call it before Finish.
     */
    std::vector<FlowRecord> Flows() const;

    /**
     * A distributed run (MPI; needs an ns-3 built with MPI, NS3_MPI, and MpiInterface enabled):
     * the rank of every node of the fabric built next, by node id (FabricHelper::SetNodeRanks).
     * Every rank builds the whole fabric and adds every flow; each simulates its own nodes and
     * starts the flows of its own hosts. Call before BuildFabric. The run ends 10 us after
     * one process's would (CheckDoneGlobal), or at --limit; after it the flow records of all ranks
     * are exchanged, so that Flows() (fct.csv, summary.json's flow figures) is the whole run's on
     * every rank. Rank 0 writes to --out, rank r > 0 to --out/rank-r (its own switches' and
     * hosts' counters and CSVs).
     * \param nodeRanks rank of node id i at i
     */
    void SetDistributed(std::vector<uint32_t> nodeRanks);
    /// \return the base RTT between two hosts (data frame out, ACK back)
    Time BaseRtt(uint32_t srcHost, uint32_t dstHost) const;
    /**
     * \return the lower bound of the FCT of `bytes` from `srcHost` to `dstHost` by `op` on
     *         the built fabric (Rust's wire::ideal_fct; a READ: wire::ideal_read_fct, the
     *         request's trip from `dstHost` first, no ACK): what AddFlow gives each flow
     */
    Time IdealFct(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, RdmaOp op) const;
    /// \return PFC PAUSE frames sent so far by every device
    uint64_t PauseFrames() const;
    /// \return PFC PAUSE frames naming priority `prio`, every device together
    uint64_t PauseFrames(uint8_t prio) const;
    /// \return the time priority `prio` was paused, summed over every device (switch ports
    ///         and host NICs; a pause still on counts up to now)
    Time PausedTime(uint8_t prio) const;
    /// \return payload bit/s the link of the bottleneck's receiver (SetBottleneck; host 0
    ///         before) carries at most: the wire limit of goodput
    double PayloadLimit() const;
    /// \return PayloadLimit() without INT's bytes: the same for every scheme, so that a
    ///         workload's offered load (e.g. ldcp-churn's --load) gives every scheme the same flows
    double LinkPayloadLimit() const;
    /**
     * \return RCM's counters summed over the switches (summary.json's "rcm": enabled,
     *         cn_sent, cn_received, detections, rcc_activations, rcc_cuts, sar_detours,
     *         sar_moves)
     */
    rdmacc::JsonObject RcmSummary() const;

    // ---- options, after Parse
    std::string Cc() const;   //!< --cc
    uint32_t Seed() const;    //!< --seed
    std::string Out() const;  //!< --out
    uint64_t Mtu() const;     //!< --mtu (payload bytes)
    uint64_t RateBps() const; //!< --rate
    bool Lossless() const;    //!< --pfc names DataPriority()
    /// the lossless priorities (--pfc: bit p = priority p)
    uint8_t PfcMask() const;
    /// the priorities whose switch queues mark ECN (--ecn: bit p = priority p)
    uint8_t EcnMask() const;
    /// whether the run has flows on another priority than DataPriority(): then the outputs
    /// break the flows, drops and PAUSEs down by priority (fct.csv's column `priority`,
    /// summary.json's `classes`, a table); a run of one class keeps the outputs it had
    bool MultiClass() const;
    bool IntOn() const; //!< --int: the switches write INT hop records
    /// the data priority of every flow (--priority, ns3::RdmaNic::Priority): the class the
    /// switches mark, and pause when the run is lossless
    uint8_t DataPriority() const;
    /// \return summary.json's `setup`: the figures that shaped the run (scheme, preset, rate,
    ///         delay, PFC, priority, MTU, buffer, INT, seed)
    rdmacc::JsonObject Setup() const;
    /// \return config.json's `resolved`: Setup() and what the run derived (marking, fabric)
    rdmacc::JsonObject Resolved() const;
    /// INT records seen by every NIC, summed (hopsMin/Max over NICs with INT ACKs)
    typedef RdmaNic::IntStats IntSummary;
    /// \return the INT statistics of every NIC together
    IntSummary IntTotals() const;
    /// \return the payload limit of a link of `rateBps` with this run's frames (INT included)
    double PayloadLimitAt(uint64_t rateBps) const;
    uint32_t IntBytes() const; //!< INT bytes per data packet and ACK (0 without INT)

    // ---- built
    Fabric fabric;                     //!< the fabric
    std::vector<Ptr<RdmaNic>> nics;    //!< nics[i] = NIC of host i
    Ptr<SwitchNode> sw;                //!< the switch (single-switch fabrics)
    Ptr<SwitchNode> bottleneckSwitch;  //!< the switch of the bottleneck queue
    uint64_t kMinB = 0;                //!< effective K_min (bytes)
    uint64_t kMaxB = 0;                //!< effective K_max
    uint64_t kFsB = 0;                 //!< effective K_fs
    uint64_t bufMaxB = 0;              //!< effective lossy egress queue limit
    double pMax = 0;                   //!< effective P_max
    double wall = 0;                   //!< wall-clock seconds of Run
    uint64_t events = 0;               //!< simulator events executed
    uint64_t ties = 0;                 //!< of them, at the previous one's time (canonical order)
    uint64_t stableDrops = 0;          //!< dropped data frames sent after the first RTT
    uint64_t firstRttDrops = 0;        //!< dropped data frames sent in the first RTT
    Time stableFrom = Seconds(-1);     //!< when every flow's first RTT was over
    Time firstDone = Seconds(-1);      //!< when the first flow completed
    uint64_t deliveredAtStable = 0;    //!< bytes delivered (all hosts) at stableFrom
    uint64_t deliveredAtFirstDone = 0; //!< bytes delivered (all hosts) at firstDone
    std::vector<uint64_t> dropsByFlow; //!< data frames dropped, per flow id
    std::array<uint64_t, 8> dropsByPrio{}; //!< frames of a data priority dropped (any kind)

  private:
    // ---- options (rdma-scenario.cc)
    std::string m_name;       //!< example name
    rdmacc::Options m_opts;   //!< the command line
    std::string m_case;       //!< case subdirectory of --out (SetCase)
    bool m_quiet = false;     //!< SetQuiet
    bool m_lossless = false;  //!< --pfc names the data priority
    uint8_t m_pfcMask = 0;    //!< --pfc (or the scheme's default) as a priority mask
    uint8_t m_ecnMask = 0xFF; //!< --ecn as a priority mask
    bool m_int = false;       //!< --int, or whether the scheme needs INT
    /// the scheme's marking and Not-ECT treatment with the given options (Parse)
    std::unique_ptr<rdmacc_ffi::ScenarioMarking> m_marking;

    // ---- fabric and flows (rdma-scenario-fabric.cc)
    /// Creates a NIC on every host of the fabric (BuildFabric).
    void AttachNics();
    /// \return the rate of host `host`'s link (bit/s; --rate before the fabric is built)
    uint64_t HostRateBps(uint32_t host) const;
    /// \return the base RTT along `links` (data frame out, ACK back)
    Time PathRtt(const std::vector<Fabric::PathLink>& links) const;
    /// IdealFct with the data's path `links` (from `srcHost` to `dstHost`) already found
    Time IdealFctOn(const std::vector<Fabric::PathLink>& links,
                    uint32_t srcHost,
                    uint32_t dstHost,
                    uint64_t bytes,
                    RdmaOp op) const;
    /// \return the flow id of QP `qp` of node `srcNode` (-1: none)
    int64_t FlowOf(uint32_t srcNode, uint32_t qp) const;
    /// \return the memory a run of `hosts` hosts and the flows added so far needs (estimate)
    uint64_t MemoryEstimate(uint64_t hosts) const;
    std::vector<uint32_t> m_nodeRanks;  //!< SetDistributed
    bool m_distributed = false;         //!< SetDistributed was called
    uint32_t m_rank = 0;                //!< this process's rank
    std::string m_fabricText;           //!< SetFabricDescription
    uint32_t m_nextFlowId = 0;          //!< flow ids
    std::vector<uint32_t> m_hostOfNode; //!< node id -> host index (UINT32_MAX: none)
    // per flow id, as time steps: until the simulator runs, ns-3 records every ns3::Time
    // object alive in a set (for a change of resolution), about 40 more bytes each
    std::vector<int64_t> m_idealFct;        //!< per flow id: the FCT lower bound (time step)
    std::vector<int64_t> m_starts;          //!< per flow id: its start (time step)
    std::vector<uint64_t> m_flowBytes;      //!< per flow id: its bytes
    std::vector<uint32_t> m_flowDst;        //!< per flow id: its destination host
    std::vector<uint32_t> m_flowSrc;        //!< per flow id: its source host
    std::vector<uint32_t> m_flowQp;         //!< per flow id: its QP at the source's NIC
    std::vector<uint8_t> m_flowPrio;        //!< per flow id: its data priority
    std::map<uint32_t, uint64_t> m_bytesTo; //!< bytes of every flow to each destination host
    uint64_t m_packets = 0;                 //!< data packets of every flow (sizes / MTU)
    uint64_t m_flowMemory = 0;              //!< estimated memory of the flows added so far
    uint32_t m_bottleneck = 0;              //!< bottleneck switch port
    uint32_t m_bottleneckHost = 0;          //!< the host the bottleneck port leads to

    // ---- run control and traces (rdma-scenario-run.cc)
    void CheckDone(Time every);
    /// A distributed run's CheckDone: every rank's finished flows summed (MPI, without blocking:
    /// the sum taken at one check is read at the next, `every` later), stops every rank at
    /// the same time once every flow is done
    void CheckDoneGlobal(Time every);
    /// Waits for the last sum CheckDoneGlobal started and frees its communicator (after Run)
    void EndCheckDoneGlobal();
    /// \return the earliest start of the flows added so far (0 without flows)
    Time FirstStart() const;
    /// Checks the flows can finish within --limit (a configuration error otherwise).
    void CheckLimit() const;
    /// The checks before the run, then the run (Run, RunFor).
    void StartRun();
    /// Connects the NICs' flow traces to this run (StartRun).
    void ConnectFlowTraces();
    /// Commits the traces and the monitor's CSVs (after the run).
    void CommitTraces();
    void SampleRates(Time every);
    void TakeRateSample();
    static void OnFirstFeedback(RdmaScenario* self, uint32_t flowId);
    static void OnFlowComplete(RdmaScenario* self, const FlowRecord& r);
    static void OnDrop(
        RdmaScenario* self, Ptr<const Packet> p, uint32_t port, uint8_t prio, const char* reason);
    void SampleFlows(Time every);
    uint64_t DeliveredNow() const;
    /// flows.csv: flow `id`'s row now (its window, rate and srtt)
    void WriteFlowRow(uint32_t id);
    /**
     * Warns on stderr when queue.csv or flows.csv will be large (estimates from the flows).
     * \param lastStart the latest flow start
     * \param busiestSeconds the time the busiest receiver's link needs for the bytes of
     *        every flow to it, at its line rate
     */
    void WarnOutputSize(Time lastStart, double busiestSeconds) const;
    std::vector<bool> m_done;      //!< per flow id: finished (FlowComplete fired)
    std::set<uint32_t> m_sampled;  //!< flows.csv sampling: flows past their first ACK, not done
    uint32_t m_completed = 0;      //!< flows whose FlowComplete fired
    uint32_t m_firstFeedbacks = 0; //!< flows past their first RTT
    Time m_duration = Seconds(-1); //!< RunFor's duration; negative: run until done
    uint64_t m_overallMax = 0;     //!< bottleneck maximum before the reset
    std::array<uint64_t, 8> m_overallMaxByPrio{}; //!< ... of each priority's queue
    std::unique_ptr<FabricMonitor> m_monitor;     //!< CSV traces of the fabric
    std::unique_ptr<rdmacc::FlowTraces> m_traces; //!< CSV traces of the flows

    // ---- results (rdma-scenario-results.cc)
    /// Distributed runs: every rank's flow records merged (after the run).
    void GatherFlows();
    /// What Finish takes from one pass over the flows in flow-id order: no record per flow.
    struct FlowPass
    {
        size_t flows = 0;            //!< records seen
        rdmacc::FlowColumns columns; //!< per flow id: size, lower bound, priority, FCT
        rdmacc::FlowTotals totals;   //!< the sums and statistics
        std::string failure;         //!< the first failed per-flow invariant (flow-id order)
        bool ops = false;            //!< some flow is not a WRITE (fct.csv's op column)
        uint64_t reads = 0;          //!< READ flows
        uint64_t readsDone = 0;      //!< of them, finished
        uint64_t readBytes = 0;      //!< their bytes delivered
        uint64_t rereads = 0;        //!< their repeat READ requests
    };
    /// \return the figures of one pass over the flows, in flow-id order (Finish)
    FlowPass PassOverFlows() const;
    /// Writes fct.csv (with the class column, the priority column, the op column) from a
    /// second pass over the flows.
    void WriteFct(bool classes, bool multiClass, bool ops) const;
    /// Distributed runs: this rank's part of GatherFlows' text (one line per sender record,
    /// one per receiver count)
    std::string LocalFlowLines() const;
    /**
     * Gives `fn` the record of every flow in flow-id order, with its ideal FCT (Flows(), one
     * at a time): the NICs' records not handed over are put in the store first; a distributed
     * run's come from GatherFlows.
     * \return the number of records
     */
    size_t ForEachFlow(const std::function<void(FlowRecord&)>& fn) const;
    /// \return the store of the flow records handed over (its file created by the first one)
    rdmacc::FlowStore& Store() const;
    /// A NIC hands a flow's final record over (RdmaNic::SetFlowHandOver): out of memory.
    static void OnHandOver(RdmaScenario* self, const FlowRecord& r);
    /// \return the bottleneck queue and the goodput at its receiver (Finish)
    rdmacc::BottleneckFigures MeasureBottleneck() const;
    /// \return the invariants every run checks (Finish)
    rdmacc::Invariants CheckInvariants(const FlowPass& flows, const rdmacc::RunReport& r) const;
    /// Writes summary.json, fct.csv, config.json (and buckets.csv); `tables` gets the lines
    /// of the reports by size and class (Finish).
    void WriteResults(const rdmacc::JsonObject& extra,
                      const FlowPass& flows,
                      const rdmacc::RunReport& r,
                      const rdmacc::Invariants& inv,
                      std::vector<std::string>& tables) const;
    /// summary.json's `classes` and the table's lines of the per-class breakdown (Finish,
    /// MultiClass runs)
    rdmacc::JsonObject ClassSummary(const rdmacc::FlowColumns& flows,
                                    std::vector<std::string>& tables) const;
    std::vector<FlowRecord> m_gathered; //!< GatherFlows (every flow: a distributed run's)
    /// the records the NICs handed over, out of memory (Store)
    mutable std::unique_ptr<rdmacc::FlowStore> m_store;
    bool m_finished = false;               //!< Finish ran (the store is gone)
    bool m_buckets = false;                //!< EnableSizeBuckets
    bool m_sizeClasses = false;            //!< EnableSizeClasses
    std::vector<std::string> m_classOf;    //!< SetFlowClasses: class per flow id
    std::vector<std::string> m_classOrder; //!< SetFlowClasses: the classes, in report order
    int m_exitStatus = 0;                  //!< 3 when an invariant failed (Finish), else 0
};

} // namespace ns3

#endif /* RDMA_SCENARIO_H */
