/*
 * rdma-cc: builds datacenter fabrics (hosts, switches, Qbb links), computes routes, installs
 * switch queue policies and reports configuration warnings.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_HELPER_H
#define FABRIC_HELPER_H

#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/qbb-net-device.h"
#include "ns3/switch-node.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rdmacc_ffi
{
struct Topology;
struct RedEcnParams;
enum class NotEctMode : std::uint8_t; // the bridge's shared enum (rdma-cc/src/switch.rs.h)
} // namespace rdmacc_ffi

namespace ns3
{
namespace rdmacc
{
class Options;
} // namespace rdmacc

struct HpccTopology;

/**
 * \ingroup rdma-cc
 * A built fabric: its nodes, devices and links. Node ids are ns-3 node ids; every host has
 * exactly one QbbNetDevice (its NIC port) and the address RoceHeader::NodeToIp(id).
 */
struct Fabric
{
    NodeContainer hosts;                        //!< end hosts
    std::vector<Ptr<SwitchNode>> switches;      //!< switches
    std::vector<Ptr<QbbNetDevice>> hostDevices; //!< hostDevices[i] = NIC of hosts.Get(i)

    /// One link: (node, port) at each end, rate, delay.
    struct Link
    {
        uint32_t a;     //!< node id
        uint32_t aPort; //!< port (device index) on a
        uint32_t b;     //!< node id
        uint32_t bPort; //!< port on b
        DataRate rate;  //!< rate
        Time delay;     //!< one-way delay
    };

    std::vector<Link> links;                        //!< every link
    std::shared_ptr<rdmacc_ffi::Topology> topology; //!< the graph with routes (Rust)

    /// \return the ports of switch or host `node` on shortest paths to host `dst`, ascending
    ///         (a host's one port when it reaches `dst`); both are ns-3 node ids
    std::vector<uint32_t> NextHops(uint32_t node, uint32_t dst) const;
    /// \return the base RTT between host indices `srcHost` and `dstHost` (indices into
    ///         `hosts`, not node ids; stops the program on an index out of range) along the path of
    ///         first next hops (every shortest path has the same hop count): propagation both ways
    ///         plus the serialisation of one `frameBytes` data frame per hop and one ACK per hop
    ///         back; -1 s when `dstHost` is unreachable
    Time BaseRtt(uint32_t srcHost, uint32_t dstHost, uint32_t frameBytes, uint32_t ackBytes) const;

    /// One link of a path, in the direction of travel.
    struct PathLink
    {
        Ptr<QbbNetDevice> device; //!< the device a frame leaves on
        DataRate rate;            //!< its rate
        Time delay;               //!< the link's one-way delay
    };

    /// \return the links from host index `srcHost` to host index `dstHost` (indices into
    ///         `hosts`, not node ids; stops the program on an index out of range) along the first
    ///         of the shortest paths (every path has the same hops in the built topologies); empty
    ///         if there is no path
    std::vector<PathLink> PathLinks(uint32_t srcHost, uint32_t dstHost) const;
    /// \return the base RTT along `links` (a path of PathLinks), as BaseRtt computes it; -1 s
    ///         when `links` is empty (no path)
    static Time PathRtt(const std::vector<PathLink>& links, uint32_t frameBytes, uint32_t ackBytes);
    /// \return the base RTT along `links` of data frames carrying `payload` bytes and ACKs, both
    ///         with `intBytes` of INT (0 without): PathRtt with the frame sizes of Rust's wire
    ///         format; -1 s when `links` is empty
    static Time DataPathRtt(const std::vector<PathLink>& links,
                            uint64_t payload,
                            uint64_t intBytes);
    /// \return the largest DataPathRtt between any two hosts (ordered pairs, each along its
    ///         PathLinks; one pair per two groups of hosts behind the same node over alike
    ///         links, whose paths are the same), the fabric-wide base RTT the HPCC simulator
    ///         gives every flow (third.cc:910-929, GLOBAL_T 1); zero with fewer than two hosts
    Time LargestDataPathRtt(uint64_t payload, uint64_t intBytes) const;
    /// \return the NIC rate of host 0 (all hosts' rates are the same in the built
    ///         topologies except FromTopology's, whose file may give each host link its own)
    DataRate HostRate() const;
    /// \return the NIC rate of host index `host`
    DataRate HostRate(uint32_t host) const;

    /**
     * FromTopology: for every node id of the topology file, the index of its host in `hosts`,
     * or -1 for a switch (ns-3 node ids differ from the file's: other nodes may exist before).
     * Empty for the other builders.
     */
    std::vector<int32_t> hostOfFileId;
    /// FromTopology: for every node id of the file, the index of its switch in `switches`, or
    /// -1 for a host.
    std::vector<int32_t> switchOfFileId;
};

/**
 * \ingroup rdma-cc
 *
 * Builds fabrics of QbbNetDevices and SwitchNodes. Attributes of every switch, device and
 * channel are set with SetSwitchAttribute / SetDeviceAttribute / SetChannelAttribute (ns-3
 * attribute names of ns3::SwitchNode, ns3::QbbNetDevice, ns3::QbbChannel). The egress queue
 * policy of the switches (RED/ECN marking, Not-ECT threshold drop) is set with SetEcn /
 * SetEcnMap / SetNotEct for the priorities given by SetQueuePriorities; it starts from the
 * defaults of ns3::RedEcnQueueDisc (the Rust RedEcnConfig), with the queue limit of each
 * switch's EgressLimit.
 *
 * Topologies: SingleSwitch (N hosts on one switch), Dumbbell (two switches joined by a
 * bottleneck link), Clos (3 tiers: ToRs with hosts, leaves per pod, spines), FatTree (the
 * k-ary fat tree), FromTopology (a topology file of the HPCC simulator, parsed by Rust), or
 * any graph from AddHost / AddSwitch / Connect followed by Finalize.
 */
class FabricHelper
{
  public:
    FabricHelper();
    ~FabricHelper();

    /// Sets an attribute of every switch created afterwards.
    void SetSwitchAttribute(const std::string& n, const AttributeValue& v);
    /**
     * Every switch created afterwards takes the switch options of `opts` as they were parsed
     * (rdmacc::Options::ConfigureSwitch, after ApplySwitchDefaults), after its attributes.
     * `opts` must outlive the switches' creation.
     */
    void SetSwitchOptions(const rdmacc::Options& opts);
    /// Sets an attribute of every device created afterwards.
    void SetDeviceAttribute(const std::string& n, const AttributeValue& v);
    /// Sets an attribute of every channel created afterwards.
    void SetChannelAttribute(const std::string& n, const AttributeValue& v);

    /// Marks egress queues of priorities in `mask` to get the RED/ECN policy (default 0xFF).
    void SetQueuePriorities(uint8_t mask);
    /// Of the priorities of SetQueuePriorities, those whose queues mark ECN (default 0xFF);
    /// the others run the policy without marking (Rust's unmarked_queue_policy: same queue
    /// limit and K_fs, never marked).
    void SetMarkedPriorities(uint8_t mask);
    /// RED/ECN marking thresholds for all links (bytes, bytes, probability; checked at
    /// Finalize, errors name KMin, KMax, PMax).
    void SetEcn(uint64_t kMin, uint64_t kMax, double pMax);
    /**
     * Per-link-speed marking thresholds "GBPS:KMIN:KMAX:PMAX,..." (bytes); a port uses the
     * entry of the largest speed not above its rate. Overrides SetEcn where it applies.
     */
    void SetEcnMap(const std::string& map);
    /// Not-ECT treatment (the Rust policy's modes: Accept, ThresholdDrop at kFs, RedDrop).
    /// Lossless priorities always accept Not-ECT packets.
    void SetNotEct(rdmacc_ffi::NotEctMode mode, uint64_t kFs);

    /**
     * Distributed runs (MPI): the rank (system id) of every node to be created, by node id (the
     * order of creation); a link between nodes of two ranks becomes a QbbRemoteChannel. Every
     * rank builds the whole fabric (routes and ECMP tables are the same everywhere) and
     * simulates its own nodes. Empty (default): one process. Needs an ns-3 with MPI (NS3_MPI).
     * \param ranks rank of node id i at i (ids beyond the end: rank 0)
     */
    void SetNodeRanks(std::vector<uint32_t> ranks);
    /// Creates a host (a Node with one QbbNetDevice, added by Connect).
    Ptr<Node> AddHost();
    /// Creates a switch.
    Ptr<SwitchNode> AddSwitch();
    /// Joins two nodes with a new link (rate, delay of the current attributes unless given).
    void Connect(Ptr<Node> a, Ptr<Node> b, DataRate rate = DataRate(0), Time delay = Seconds(-1));
    /// Computes routes, sets up every switch (buffer, policies) and prints warnings.
    Fabric Finalize();

    /// N hosts on one switch.
    Fabric SingleSwitch(uint32_t nHosts);
    /// nLeft hosts on switch 0, nRight on switch 1, joined by one link of `bottleneck`.
    Fabric Dumbbell(uint32_t nLeft, uint32_t nRight, DataRate bottleneck);
    /**
     * 3-tier Clos: `pods` pods of `torsPerPod` ToRs (each with `hostsPerTor` hosts) and
     * `leavesPerPod` leaves (every ToR of a pod to every leaf of the pod), every leaf to every
     * one of `spines` spines. `fabricRate` = 0: same rate as the host links.
     */
    Fabric Clos(uint32_t pods,
                uint32_t torsPerPod,
                uint32_t leavesPerPod,
                uint32_t spines,
                uint32_t hostsPerTor,
                DataRate fabricRate = DataRate(0));

    /**
     * The k-ary fat tree (Al-Fares et al., "A Scalable, Commodity Data Center Network
     * Architecture", SIGCOMM 2008, section 3): k pods, each of k/2 edge and k/2 aggregation
     * switches (every edge switch to every aggregation switch of its pod), k/2 hosts per edge
     * switch, (k/2)^2 core switches; aggregation switch j of every pod links to cores
     * j k/2 ... (j+1) k/2 - 1. k^3/4 hosts, 5k^2/4 switches of k ports, 3k^3/4 links (k = 4: 16
     * hosts, 20 switches, 48 links); a path between pods has 6 hops. k must be even and at
     * least 2 (else a configuration error, exit 2).
     *
     * Order: `switches` holds the cores first, then pod by pod its aggregation switches and
     * its edge switches; host index = pod k^2/4 + edge k/2 + i. `hostRate` / `fabricRate` = 0:
     * the rate of the DataRate attribute. Every link is 1:1 (no oversubscription option yet).
     */
    Fabric FatTree(uint32_t k, DataRate hostRate = DataRate(0), DataRate fabricRate = DataRate(0));

    /**
     * The fabric of a topology file of the HPCC simulator, as rdmacc::ReadHpccTopology returns
     * it (checked: one link per host, connected, ...). Nodes are
     * created in file-id order (hosts keep the order of their ids), each link is Connect-ed in
     * file order with its own rate and delay (so a switch's ports follow the order of its
     * links in the file). The result maps file ids to hosts and switches (hostOfFileId,
     * switchOfFileId).
     */
    Fabric FromTopology(const HpccTopology& topology);

    /// \return the warnings printed by the last Finalize
    const std::vector<std::string>& GetWarnings() const;
    /// Prints warnings to stderr at Finalize (default true).
    void SetPrintWarnings(bool on);

  private:
    /// warning text, ids of the switches that gave it (in order of first appearance)
    using WarningsBySwitch = std::vector<std::pair<std::string, std::vector<uint32_t>>>;
    /// Finalize's steps: the route table over every node and link
    void BuildTopology();
    /// each port's queue policies on sw; returns (any marking queue, smallest K_min)
    std::pair<bool, uint64_t> SetPortPolicies(Ptr<SwitchNode> sw) const;
    /// sw's configuration warnings, kept once per text in m_warnings and byText
    void CollectWarnings(Ptr<SwitchNode> sw,
                         bool marking,
                         uint64_t minKMin,
                         WarningsBySwitch& byText);
    /// prints each warning once, naming up to 8 switches
    static void PrintWarnings(const WarningsBySwitch& byText);
    ObjectFactory m_switchFactory;                    //!< switches
    const rdmacc::Options* m_switchOptions = nullptr; //!< SetSwitchOptions (none: null)
    ObjectFactory m_deviceFactory;                    //!< devices
    ObjectFactory m_channelFactory;                   //!< channels
    uint8_t m_queuePrios;                             //!< priorities with the RED/ECN policy
    uint8_t m_markedPrios = 0xFF;                     //!< of them, the priorities that mark
    struct Policy;                                    //!< holds the egress policy (in the code)
    std::unique_ptr<Policy> m_policy;                 //!< the egress policy (Rust RedEcnConfig)
    std::string m_ecnMap;                             //!< per-speed marking
    bool m_printWarnings;                             //!< print at Finalize
    Fabric m_fabric;                                  //!< being built
    std::vector<std::string> m_warnings;              //!< from Finalize
    /// node id -> index of the host in m_fabric.hosts
    std::unordered_map<uint32_t, uint32_t> m_hostIndex;
    std::vector<uint32_t> m_nodeRanks; //!< SetNodeRanks
    /// \return the rank of the next node created
    uint32_t NextRank() const;

    class Building;
    /// Connect's new device: the factory's, or while a topology of the helper is being built
    /// (Building) a copy (QbbNetDevice::CreateLike) of the first device the factory built then
    Ptr<QbbNetDevice> NewDevice();
    bool m_building = false;        //!< a topology of the helper is being built
    Ptr<QbbNetDevice> m_deviceLike; //!< while building: the device NewDevice copies
};

} // namespace ns3

#endif /* FABRIC_HELPER_H */
