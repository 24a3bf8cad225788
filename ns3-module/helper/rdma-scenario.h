/*
 * rdma-cc: the common part of the RDMA examples (ldcp-incast, ldcp-churn, ...): options,
 * a fabric of hosts with RdmaNics, flows, a run that ends when every flow is done, and the
 * shared outputs (summary.json, fct.csv, queue/pfc/drop CSVs).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_SCENARIO_H
#define RDMA_SCENARIO_H

#include "fabric-helper.h"
#include "fabric-monitor.h"
#include "flow-results.h"
#include "rdma-cc-output.h"

#include "ns3/command-line.h"
#include "ns3/rdma-nic.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Options shared by every RDMA example, with their defaults (README "Examples"). LDCP's
 * switch thresholds default to ldcp.md's starting point: K_min = 0.5 x the BDP of one hop
 * (link rate x 2 x delay), K_max = 4 K_min, P_max = 0.2, K_fs = K_min.
 */
class RdmaScenario
{
  public:
    /// \param name example name (default output directory results/NAME)
    explicit RdmaScenario(const std::string& name);
    ~RdmaScenario();

    /// Registers the shared options on `cmd`.
    void AddOptions(CommandLine& cmd);
    /// Checks every option; a bad one stops the program with a message naming it.
    void Validate();
    /// Builds `nHosts` hosts on one switch, with a NIC each (after Validate).
    void BuildSingleSwitch(uint32_t nHosts);
    /// Adds a flow between host indexes; returns its flow id.
    uint32_t AddFlow(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start);
    /**
     * Runs until every flow is done (checked every 10 us) or `limit`. When the last flow
     * receives its first ACK or NACK (every first RTT is over), the switch's exact egress
     * maxima restart: GetMaxEgressBytes then reports the stable-stage queue.
     */
    void Run(Time limit, uint32_t bottleneckPort = 0);
    /**
     * Writes summary.json (shared keys, then `extra`'s), fct.csv and the fabric CSVs, and prints
     * a summary table. `bottleneckPort` is the switch port whose queue is reported.
     */
    void Finish(uint32_t bottleneckPort, const rdmacc::JsonObject& extra);

    /// \return the flow records of every NIC, in flow-id order
    std::vector<FlowRecord> Flows() const;
    /// \return the base RTT between two hosts (data frame out, ACK back)
    Time BaseRtt(uint32_t srcHost, uint32_t dstHost) const;
    /// \return the LDCP initial window in bytes for a path of `baseRtt` (Iw or BDP)
    uint64_t IwBytes(Time baseRtt) const;

    // ---- options (public: examples read them)
    std::string name;        //!< example name
    std::string cc;          //!< --cc: ldcp | ldcp-rate | none
    std::string rate;        //!< --rate
    std::string delay;       //!< --delay
    uint32_t seed;           //!< --seed
    std::string out;         //!< --out
    double alpha;            //!< --alpha
    double beta;             //!< --beta
    double gamma;            //!< --gamma
    double eta;              //!< --eta
    double iw;               //!< --iw (packets, 0: BDP)
    bool fastStart;          //!< --fastStart
    bool subPacket;          //!< --subPacket
    uint32_t ackEvery;       //!< --ackEvery
    std::string rto;         //!< --rto (0: 4 x base RTT)
    std::string cnpInterval; //!< --cnpInterval
    uint32_t mtu;            //!< --mtu (payload bytes)
    double kmin;             //!< --kmin (-1: auto)
    double kmax;             //!< --kmax (-1: 4 kmin)
    double pmax;             //!< --pmax
    double kfs;              //!< --kfs (-1: kmin)
    double bufMax;           //!< --bufMax: egress queue limit (lossy)
    double buffer;           //!< --buffer: switch buffer
    double headroom;         //!< --headroom
    int pfc;                 //!< --pfc: 1 lossless data priority, 0 lossy
    std::string sample;      //!< --sample: queue sampling interval

    // ---- built
    Fabric fabric;                     //!< the fabric
    std::vector<Ptr<RdmaNic>> nics;    //!< nics[i] = NIC of host i
    Ptr<SwitchNode> sw;                //!< the switch (single-switch fabrics)
    uint64_t kMinB = 0;                //!< effective K_min (bytes)
    uint64_t kMaxB = 0;                //!< effective K_max
    uint64_t kFsB = 0;                 //!< effective K_fs
    double wall = 0;                   //!< wall-clock seconds of Run
    uint64_t events = 0;               //!< simulator events executed
    uint64_t stableDrops = 0;          //!< dropped data frames sent after the first RTT
    uint64_t firstRttDrops = 0;        //!< dropped data frames sent in the first RTT
    Time stableFrom = Seconds(-1);     //!< when every flow's first RTT was over
    Time firstDone = Seconds(-1);      //!< when the first flow completed
    uint64_t deliveredAtStable = 0;    //!< bytes delivered (all hosts) at stableFrom
    uint64_t deliveredAtFirstDone = 0; //!< bytes delivered (all hosts) at firstDone
    std::vector<uint64_t> dropsByFlow; //!< data frames dropped, per flow id

  private:
    void CheckDone(Time every);
    static void OnFirstFeedback(RdmaScenario* self, uint32_t flowId);
    static void OnFlowComplete(RdmaScenario* self, const FlowRecord& r);
    uint64_t DeliveredNow() const;
    std::map<uint64_t, uint32_t> m_flowOf; //!< (src node << 32 | qp) -> flow id
    uint32_t m_completed = 0;              //!< flows whose FlowComplete fired
    uint32_t m_firstFeedbacks = 0;         //!< flows past their first RTT
    uint32_t m_bottleneck = 0;             //!< bottleneck switch port
    uint64_t m_overallMax = 0;             //!< bottleneck maximum before the reset
    static void OnDrop(
        RdmaScenario* self, Ptr<const Packet> p, uint32_t port, uint8_t prio, const char* reason);

    uint32_t m_nextFlowId = 0;                //!< flow ids
    std::unique_ptr<FabricMonitor> m_monitor; //!< CSV traces
    Time m_linkDelay;                         //!< parsed --delay
};

} // namespace ns3

#endif /* RDMA_SCENARIO_H */
