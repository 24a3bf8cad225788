/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "qbb-net-device.h"

#include "pfc-header.h"
#include "qbb-channel.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QbbNetDevice");
NS_OBJECT_ENSURE_REGISTERED(QbbNetDevice);

TypeId
QbbNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::QbbNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("RdmaCc")
            .AddConstructor<QbbNetDevice>()
            .AddAttribute("DataRate",
                          "Link rate of this device.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&QbbNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest payload the device carries (bytes; informational: frames "
                          "are built by the NIC and the switch).",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&QbbNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("PfcEnabled",
                          "Bit mask of the priorities for which received PAUSE frames are "
                          "obeyed (bit p = priority p). PAUSE frames for other priorities are "
                          "counted and ignored.",
                          UintegerValue(0xFF),
                          MakeUintegerAccessor(&QbbNetDevice::m_pfcEnabled),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time put in the PAUSE frames this device sends, in quanta of "
                          "512 bit times (65535 = the maximum, ~335 us at 100 Gb/s).",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&QbbNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PauseRefreshFraction",
                          "While a pause is wanted, the PAUSE frame is sent again after this "
                          "fraction of its pause time, so the peer never resumes early.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&QbbNetDevice::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            .AddTraceSource("PhyTxBegin",
                            "A frame starts on the wire.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A non-PFC frame was received.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was sent: (priority, quanta); quanta 0 = RESUME.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcTxTrace),
                            "ns3::QbbNetDevice::PfcTxCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received for an enabled priority: (priority, "
                            "quanta, pause duration; 0 = RESUME).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcRxTrace),
                            "ns3::QbbNetDevice::PfcRxCallback");
    return tid;
}

QbbNetDevice::QbbNetDevice() :
    m_ifIndex(0),
    m_mtu(1500),
    m_pfcEnabled(0xFF),
    m_pauseQuanta(0xFFFF),
    m_refreshFraction(0.5),
    m_busy(false),
    m_psCarry(0),
    m_rrNext(0),
    m_source(nullptr)
{
    for (uint8_t p = 0; p < N_PRIO; p++)
    {
        m_pausedUntil[p] = Seconds(0);
        m_pauseSince[p] = Seconds(0);
        m_pausedTotal[p] = Seconds(0);
    }
}

QbbNetDevice::~QbbNetDevice() = default;

void
QbbNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_source = nullptr;
    m_pfcQueue.clear();
    m_ctrlQueue.clear();
    for (auto& q : m_data)
    {
        q.clear();
    }
    m_rxHandler = RxHandler();
    m_dequeueHandler = DequeueHandler();
    NetDevice::DoDispose();
}

void
QbbNetDevice::Attach(Ptr<QbbChannel> ch)
{
    m_channel = ch;
    ch->Attach(this);
}

void
QbbNetDevice::SetRxHandler(RxHandler h)
{
    m_rxHandler = h;
}

void
QbbNetDevice::SetDequeueHandler(DequeueHandler h)
{
    m_dequeueHandler = h;
}

void
QbbNetDevice::SetDataSource(QbbDataSource* src)
{
    m_source = src;
}

void
QbbNetDevice::EnqueueData(uint8_t prio, Ptr<Packet> p, uint32_t meta)
{
    NS_ASSERT(prio < N_PRIO);
    m_dataBytes[prio] += p->GetSize();
    m_data[prio].push_back(Entry{p, meta});
    TryTransmit();
}

void
QbbNetDevice::EnqueueControl(Ptr<Packet> p)
{
    m_ctrlQueue.push_back(p);
    TryTransmit();
}

void
QbbNetDevice::SendPfcFrame(uint8_t prio, uint16_t quanta)
{
    PfcHeader h;
    h.classEnable = static_cast<uint16_t>(1u << prio);
    h.quanta[prio] = quanta;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    if (quanta > 0)
    {
        m_stats.pfcTx[prio]++;
    }
    else
    {
        m_stats.resumeTx[prio]++;
    }
    m_pfcTxTrace(prio, quanta);
    m_pfcQueue.push_back(p);
    TryTransmit();
}

void
QbbNetDevice::SendPfc(uint8_t prio, bool pause)
{
    NS_ASSERT(prio < N_PRIO);
    if (pause)
    {
        m_pausingPeer[prio] = true;
        SendPfcFrame(prio, m_pauseQuanta);
        m_refreshEvent[prio].Cancel();
        Time pauseTime =
            m_rate.CalculateBytesTxTime(uint32_t(m_pauseQuanta) * PfcHeader::QUANTUM_BITS / 8);
        m_refreshEvent[prio] = Simulator::Schedule(
            pauseTime * m_refreshFraction, &QbbNetDevice::RefreshPause, this, prio);
    }
    else if (m_pausingPeer[prio])
    {
        m_pausingPeer[prio] = false;
        m_refreshEvent[prio].Cancel();
        SendPfcFrame(prio, 0);
    }
}

void
QbbNetDevice::RefreshPause(uint8_t prio)
{
    if (m_pausingPeer[prio])
    {
        SendPfc(prio, true);
    }
}

void
QbbNetDevice::TriggerTransmit()
{
    TryTransmit();
}

bool
QbbNetDevice::IsPaused(uint8_t prio) const
{
    return Simulator::Now() < m_pausedUntil[prio];
}

bool
QbbNetDevice::IsPausingPeer(uint8_t prio) const
{
    return m_pausingPeer[prio];
}

uint8_t
QbbNetDevice::PausedMask() const
{
    uint8_t m = 0;
    const Time now = Simulator::Now();
    for (uint8_t p = 0; p < N_PRIO; p++)
    {
        if (now < m_pausedUntil[p])
        {
            m |= static_cast<uint8_t>(1u << p);
        }
    }
    return m;
}

void
QbbNetDevice::TryTransmit()
{
    if (m_busy || !m_channel)
    {
        return;
    }
    Ptr<Packet> p;
    if (!m_pfcQueue.empty())
    {
        p = m_pfcQueue.front();
        m_pfcQueue.pop_front();
    }
    else if (!m_ctrlQueue.empty())
    {
        p = m_ctrlQueue.front();
        m_ctrlQueue.pop_front();
    }
    else
    {
        const uint8_t paused = PausedMask();
        for (uint8_t k = 0; k < N_PRIO; k++)
        {
            const uint8_t c = (m_rrNext + k) % N_PRIO;
            if (m_data[c].empty() || (paused & (1u << c)))
            {
                continue;
            }
            Entry e = m_data[c].front();
            m_data[c].pop_front();
            const uint32_t size = e.packet->GetSize();
            m_dataBytes[c] -= size;
            m_rrNext = (c + 1) % N_PRIO;
            m_stats.txDataBytes += size;
            // busy before the handler runs: it may queue a RESUME on this very device
            m_busy = true;
            if (!m_dequeueHandler.IsNull())
            {
                m_dequeueHandler(this, c, e.meta, size);
            }
            TransmitStart(e.packet);
            return;
        }
        if (m_source)
        {
            m_busy = true;
            p = m_source->PullData(paused);
            m_busy = false;
            if (p)
            {
                m_stats.txDataBytes += p->GetSize();
            }
        }
    }
    if (p)
    {
        m_busy = true;
        TransmitStart(p);
    }
}

Time
QbbNetDevice::WireTime(uint32_t frameBytes) const
{
    const uint64_t wire = std::max(frameBytes, MIN_FRAME) + PREAMBLE_IFG;
    return m_rate.CalculateBytesTxTime(static_cast<uint32_t>(wire));
}

void
QbbNetDevice::TransmitStart(Ptr<Packet> p)
{
    NS_ASSERT(m_busy);
    const uint64_t size = p->GetSize();
    const uint64_t wireBits = (std::max<uint64_t>(size, MIN_FRAME) + PREAMBLE_IFG) * 8;
    // exact serialisation in picoseconds, carried over so the long-run rate is exact
    const uint64_t bps = m_rate.GetBitRate();
    const unsigned __int128 ps = static_cast<unsigned __int128>(wireBits) * 1000000000000ULL / bps;
    const uint64_t total = static_cast<uint64_t>(ps) + m_psCarry;
    const uint64_t ns = total / 1000;
    m_psCarry = total % 1000;
    const Time txTime = NanoSeconds(ns);
    m_stats.txFrames++;
    m_stats.txBytes += size;
    m_phyTxBeginTrace(p);
    m_channel->TransmitStart(p, this, txTime);
    Simulator::Schedule(txTime, &QbbNetDevice::TransmitComplete, this);
}

void
QbbNetDevice::TransmitComplete()
{
    m_busy = false;
    TryTransmit();
}

void
QbbNetDevice::Receive(Ptr<Packet> p)
{
    m_stats.rxFrames++;
    m_stats.rxBytes += p->GetSize();
    uint8_t eth[14];
    if (p->GetSize() >= 14 && p->CopyData(eth, 14) == 14 && eth[12] == 0x88 && eth[13] == 0x08)
    {
        ReceivePfc(p);
        return;
    }
    m_macRxTrace(p);
    if (!m_rxHandler.IsNull())
    {
        m_rxHandler(this, p);
    }
}

void
QbbNetDevice::ReceivePfc(Ptr<Packet> p)
{
    PfcHeader h;
    p->RemoveHeader(h);
    const Time now = Simulator::Now();
    for (uint8_t c = 0; c < N_PRIO; c++)
    {
        if (!(h.classEnable & (1u << c)) || !(m_pfcEnabled & (1u << c)))
        {
            continue;
        }
        // close the pause interval that is running (or that expired unnoticed)
        if (m_pauseOpen[c])
        {
            m_pausedTotal[c] += std::min(now, m_pausedUntil[c]) - m_pauseSince[c];
            m_pauseOpen[c] = false;
        }
        const uint16_t q = h.quanta[c];
        if (q == 0)
        {
            m_stats.resumeRx[c]++;
            m_pausedUntil[c] = now;
            m_pfcRxTrace(c, 0, Seconds(0));
            continue;
        }
        m_stats.pfcRx[c]++;
        const Time d = m_rate.CalculateBytesTxTime(uint32_t(q) * PfcHeader::QUANTUM_BITS / 8);
        m_pausedUntil[c] = now + d;
        m_pauseSince[c] = now;
        m_pauseOpen[c] = true;
        m_pfcRxTrace(c, q, d);
        m_wakeEvent[c].Cancel();
        m_wakeEvent[c] = Simulator::Schedule(d, &QbbNetDevice::TryTransmit, this);
    }
    TryTransmit();
}

Time
QbbNetDevice::GetPausedTime(uint8_t prio) const
{
    Time t = m_pausedTotal[prio];
    if (m_pauseOpen[prio])
    {
        t += std::min(Simulator::Now(), m_pausedUntil[prio]) - m_pauseSince[prio];
    }
    return t;
}

const QbbNetDevice::Stats&
QbbNetDevice::GetStats() const
{
    return m_stats;
}

uint64_t
QbbNetDevice::GetQueueBytes(uint8_t prio) const
{
    return m_dataBytes[prio];
}

DataRate
QbbNetDevice::GetDataRate() const
{
    return m_rate;
}

Time
QbbNetDevice::GetDelay() const
{
    return m_channel ? m_channel->GetDelay() : Seconds(0);
}

void
QbbNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
QbbNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
QbbNetDevice::GetChannel() const
{
    return m_channel;
}

void
QbbNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
QbbNetDevice::GetAddress() const
{
    return m_address;
}

bool
QbbNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
QbbNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
QbbNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
QbbNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
}

bool
QbbNetDevice::IsBroadcast() const
{
    return false;
}

Address
QbbNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
QbbNetDevice::IsMulticast() const
{
    return false;
}

Address
QbbNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
QbbNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
QbbNetDevice::IsBridge() const
{
    return false;
}

bool
QbbNetDevice::IsPointToPoint() const
{
    return true;
}

bool
QbbNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    // generic ns-3 sends go out as data of class 0
    EnqueueData(0, packet, 0);
    return true;
}

bool
QbbNetDevice::SendFrom(Ptr<Packet> packet,
                       const Address& source,
                       const Address& dest,
                       uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
QbbNetDevice::GetNode() const
{
    return m_node;
}

void
QbbNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
QbbNetDevice::NeedsArp() const
{
    return false;
}

void
QbbNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
}

void
QbbNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
}

bool
QbbNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
