/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "qbb-channel.h"

#include "qbb-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QbbChannel");
NS_OBJECT_ENSURE_REGISTERED(QbbChannel);

TypeId
QbbChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbChannel")
                            .SetParent<Channel>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<QbbChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the link.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&QbbChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

QbbChannel::QbbChannel() :
    m_nDevices(0)
{
}

void
QbbChannel::Attach(Ptr<QbbNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a QbbChannel joins exactly two devices");
    m_dev[m_nDevices++] = device;
}

void
QbbChannel::TransmitStart(Ptr<Packet> p, Ptr<QbbNetDevice> src, Time txTime)
{
    NS_ASSERT(m_nDevices == 2);
    Ptr<QbbNetDevice> dst = (m_dev[0] == src) ? m_dev[1] : m_dev[0];
    Simulator::ScheduleWithContext(
        dst->GetNode()->GetId(), txTime + m_delay, &QbbNetDevice::Receive, dst, p);
}

Time
QbbChannel::GetDelay() const
{
    return m_delay;
}

Ptr<QbbNetDevice>
QbbChannel::GetPeer(Ptr<const QbbNetDevice> d) const
{
    return m_dev[0] == d ? m_dev[1] : m_dev[0];
}

std::size_t
QbbChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
QbbChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? Ptr<NetDevice>(m_dev[i]) : nullptr;
}

#ifdef NS3_MPI
NS_OBJECT_ENSURE_REGISTERED(QbbRemoteChannel);

TypeId
QbbRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbRemoteChannel")
                            .SetParent<QbbChannel>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<QbbRemoteChannel>();
    return tid;
}

void
QbbRemoteChannel::Attach(Ptr<QbbNetDevice> device)
{
    QbbChannel::Attach(device);
    Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
    rx->SetReceiveCallback(MakeCallback(&QbbNetDevice::Receive, device));
    device->AggregateObject(rx);
}

void
QbbRemoteChannel::TransmitStart(Ptr<Packet> p, Ptr<QbbNetDevice> src, Time txTime)
{
    Ptr<QbbNetDevice> dst = GetPeer(src);
    if (dst->GetNode()->GetSystemId() == MpiInterface::GetSystemId())
    {
        QbbChannel::TransmitStart(p, src, txTime);
        return;
    }
    MpiInterface::SendPacket(p->Copy(),
                             Simulator::Now() + txTime + GetDelay(),
                             dst->GetNode()->GetId(),
                             dst->GetIfIndex());
}
#endif

} // namespace ns3
