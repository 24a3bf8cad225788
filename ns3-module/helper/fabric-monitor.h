/*
 * rdma-cc: CSV traces of a fabric: PFC frames, switch drops, egress queue samples.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_MONITOR_H
#define FABRIC_MONITOR_H

#include "fabric-helper.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <array>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Writes, into an output directory:
 * - `pfc.csv`: `time_ns,node,port,prio,kind,quanta,duration_ns` — every PFC frame a device
 *   sends (kind `pause` or `resume`; duration = quanta x 512 bit times at the port's rate);
 * - `drops.csv`: `time_ns,node,port,prio,reason,bytes` — every frame a switch drops (port =
 *   ingress port);
 * - `queue.csv`: `time_ns,node,port,prio,bytes` — every `interval` from time 0 (or from
 *   StartSamplingAt), each switch egress queue of the sampled priorities that is not empty
 *   (absent rows are empty queues).
 *
 * Files are written as NAME.partial and renamed at Finish(), so a file named .csv is complete;
 * a configuration error (rdmacc::ConfigFatal) before then removes them.
 * The monitor also keeps the maximum and the time average of every sampled queue.
 */
class FabricMonitor
{
  public:
    /**
     * \param fabric the fabric (switch ports and host devices are traced)
     * \param outDir existing output directory
     * \param interval queue sampling interval (0: no queue.csv)
     * \param prioMask priorities whose egress queues are sampled
     */
    FabricMonitor(const Fabric& fabric, const std::string& outDir, Time interval, uint8_t prioMask);
    ~FabricMonitor();

    /**
     * Takes the first queue sample at `at` instead of time 0 (call before Simulator::Run): a
     * run whose traffic starts late (flows at t = 2 s) spends no event sampling idle queues.
     */
    void StartSamplingAt(Time at);

    /// Flushes and renames the files; call after Simulator::Run.
    void Finish();

    /// \return the largest sampled egress queue (bytes) of (node, port, prio)
    uint64_t MaxQueue(uint32_t node, uint32_t port, uint8_t prio) const;
    /// \return the time-average of the samples of (node, port, prio)
    double AvgQueue(uint32_t node, uint32_t port, uint8_t prio) const;
    /// \return the largest sampled egress queue of any switch port
    uint64_t MaxQueueAnywhere() const;
    /// \return PFC PAUSE frames (time > 0) sent by every device together
    uint64_t PauseFrames() const;
    /// \return PFC PAUSE frames (time > 0) naming priority `prio`, every device together
    uint64_t PauseFrames(uint8_t prio) const;
    /// \return RESUME frames sent by every device together
    uint64_t ResumeFrames() const;

  private:
    void Sample();
    static void OnPfcTx(FabricMonitor* self,
                        uint32_t node,
                        uint32_t port,
                        uint64_t bps,
                        uint8_t prio,
                        uint16_t quanta);
    static void OnDrop(FabricMonitor* self,
                       uint32_t node,
                       Ptr<const Packet> p,
                       uint32_t port,
                       uint8_t prio,
                       const char* reason);

    /// Accumulated samples of one queue.
    struct QueueStat
    {
        uint64_t max = 0; //!< largest sample
        double sum = 0;   //!< sum of samples
    };

    /// \return the statistics of (node, port, prio), or nullptr if that is no switch queue
    const QueueStat* Find(uint32_t node, uint32_t port, uint8_t prio) const;

    const Fabric& m_fabric; //!< traced fabric
    std::string m_dir;      //!< output directory
    Time m_interval;        //!< sampling interval
    uint8_t m_prios;        //!< sampled priorities
    std::ofstream m_pfc;    //!< pfc.csv
    std::ofstream m_drops;  //!< drops.csv
    std::ofstream m_queue;  //!< queue.csv
    uint64_t m_samples;     //!< samples taken
    /// The statistics of (port, prio) of m_fabric.switches[i] at m_q[i][port * 8 + prio]
    std::vector<std::vector<QueueStat>> m_q;
    std::unordered_map<uint32_t, uint32_t> m_switchIndex; //!< node id -> index in m_q
    struct EgressBuffer;                                  //!< a switch's sample (in the code)
    std::unique_ptr<EgressBuffer> m_sample;               //!< one switch's sample (reused)
    uint64_t m_pauses;                                    //!< PAUSE frames
    std::array<uint64_t, 8> m_pausesByPrio{};             //!< PAUSE frames per priority
    uint64_t m_resumes;                                   //!< RESUME frames
    bool m_finished;                                      //!< Finish() done
    EventId m_next;                                       //!< the next Sample
};

} // namespace ns3

#endif /* FABRIC_MONITOR_H */
