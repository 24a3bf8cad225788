/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-header.h"

#include "pfc-header.h"
#include "qbb-net-device.h"

#include "rdma-cc/src/transport.rs.h"
#include "rdma-cc/src/wire.rs.h"

namespace ns3
{

std::string
RoceHeader::CheckWireConstants()
{
    const auto w = rdmacc_ffi::wire_constants();
    std::string out;
    auto check = [&out](const char* name, uint64_t cpp, uint64_t rust)
    {
        if (cpp != rust)
        {
            out += std::string(name) + " " + std::to_string(cpp) + " != " + std::to_string(rust) +
                   "; ";
        }
    };
    check("DATA_OVERHEAD", DATA_OVERHEAD, w.data_headers);
    check("AETH", AETH, w.aeth);
    check("RETH", RETH, w.reth);
    check("PfcHeader::FRAME_SIZE", PfcHeader::FRAME_SIZE, w.min_frame);
    check("INT_BYTES", INT_BYTES, rdmacc_ffi::int_bytes_on_wire());
    check("IntTag::MAX_HOPS", IntTag::MAX_HOPS, rdmacc_ffi::int_max_hops());
    RoceHeader h;
    h.kind = DATA;
    check("serialised data headers", h.GetSerializedSize(), w.data_headers);
    return out;
}

NS_OBJECT_ENSURE_REGISTERED(RoceHeader);

RoceHeader::RoceHeader() :
    kind(DATA),
    prio(0),
    ecn(0),
    flags(0),
    srcIp(0),
    dstIp(0),
    srcPort(0),
    dstPort(ROCE_PORT),
    flowId(0),
    seq(0),
    ts(0),
    msgSize(0),
    scheme(0)
{
}

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceHeader::Print(std::ostream& os) const
{
    static const char* names[] = {
        "DATA", "ACK", "NACK", "CNP", "PROBE", "PROBE_RESP", "SWITCH_CONTROL"};
    os << (kind <= SWITCH_CONTROL ? names[kind] : "?") << " prio=" << int(prio)
       << " ecn=" << int(ecn) << " flags=" << int(flags) << " " << srcIp << ":" << srcPort << "->"
       << dstIp << ":" << dstPort << " qp=" << flowId << " seq=" << seq << " ts=" << ts;
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    const uint32_t intBytes = (flags & FLAG_INT) ? INT_BYTES : 0;
    switch (kind)
    {
    case ACK:
    case NACK:
        return DATA_OVERHEAD + AETH + intBytes;
    case CNP:
        return DATA_OVERHEAD + CNP_PAYLOAD + intBytes;
    case READ_REQ:
        return DATA_OVERHEAD + RETH;
    default:
        return DATA_OVERHEAD + intBytes;
    }
}

void
RoceHeader::Serialize(Buffer::Iterator i) const
{
    // Ethernet (14): MACs unused but for the timestamp (first 8 bytes) and the priority (last
    // byte), EtherType IPv4
    i.WriteHtonU64(ts);
    i.WriteU8(kind == DATA ? scheme : 0);
    i.WriteU8(0);
    i.WriteU8(0);
    i.WriteU8(prio);
    i.WriteHtonU16(0x0800);
    // IPv4 (20): version/IHL, DSCP/ECN, ..., protocol 17, addresses
    i.WriteU8(0x45);
    i.WriteU8(static_cast<uint8_t>((prio << 5) | (ecn & 3)));
    i.WriteHtonU16(static_cast<uint16_t>(GetSerializedSize() - 18));
    i.WriteU8(kind);
    i.WriteU8(flags);
    i.WriteHtonU16(0);
    i.WriteU8(64);
    i.WriteU8(17);
    i.WriteHtonU16(0);
    i.WriteHtonU32(srcIp);
    i.WriteHtonU32(dstIp);
    // UDP (8)
    i.WriteHtonU16(srcPort);
    i.WriteHtonU16(dstPort);
    i.WriteHtonU32(0);
    // BTH (12): QPN and the sequence number (bytes, 64 bit here)
    i.WriteHtonU32(flowId);
    i.WriteHtonU64(seq);
    // AETH / CNP payload, then ICRC + FCS: zeros, but for the message size of a data packet
    if (kind == DATA)
    {
        i.WriteHtonU64(msgSize);
        return;
    }
    for (uint32_t k = 54; k < GetSerializedSize(); k++)
    {
        i.WriteU8(0);
    }
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator i)
{
    ts = i.ReadNtohU64();
    scheme = i.ReadU8();
    i.Next(2);
    prio = i.ReadU8();
    i.Next(2);
    i.Next(1);
    ecn = i.ReadU8() & 3;
    i.Next(2);
    kind = static_cast<Kind>(i.ReadU8());
    flags = i.ReadU8();
    i.Next(2 + 1 + 1 + 2);
    srcIp = i.ReadNtohU32();
    dstIp = i.ReadNtohU32();
    srcPort = i.ReadNtohU16();
    dstPort = i.ReadNtohU16();
    i.Next(4);
    flowId = i.ReadNtohU32();
    seq = i.ReadNtohU64();
    const uint32_t size = GetSerializedSize();
    if (kind == DATA)
    {
        msgSize = i.ReadNtohU64();
    }
    else
    {
        msgSize = 0;
        scheme = 0;
        i.Next(size - 54);
    }
    return size;
}

NS_OBJECT_ENSURE_REGISTERED(IntTag);

TypeId
IntTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IntTag").SetParent<Tag>().SetGroupName("RdmaCc").AddConstructor<IntTag>();
    return tid;
}

TypeId
IntTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IntTag::GetSerializedSize() const
{
    // fixed size, so that a switch's ReplacePacketTag writes over the tag in place
    return 1 + MAX_HOPS * (4 * 8 + 2 * 4);
}

void
IntTag::Serialize(TagBuffer i) const
{
    i.WriteU8(nHops);
    for (const Hop& h : hops)
    {
        i.WriteU64(h.qlenBytes);
        i.WriteU64(h.txBytes);
        i.WriteU64(h.tsNs);
        i.WriteU64(h.lineRateBps);
        i.WriteU32(h.node);
        i.WriteU32(h.port);
    }
}

void
IntTag::Deserialize(TagBuffer i)
{
    nHops = i.ReadU8();
    for (Hop& h : hops)
    {
        h.qlenBytes = i.ReadU64();
        h.txBytes = i.ReadU64();
        h.tsNs = i.ReadU64();
        h.lineRateBps = i.ReadU64();
        h.node = i.ReadU32();
        h.port = i.ReadU32();
    }
}

void
IntTag::Print(std::ostream& os) const
{
    os << "INT hops=" << int(nHops);
    for (uint8_t k = 0; k < nHops && k < MAX_HOPS; k++)
    {
        os << " [" << hops[k].node << ":" << hops[k].port << " q=" << hops[k].qlenBytes
           << " tx=" << hops[k].txBytes << " ts=" << hops[k].tsNs << " B=" << hops[k].lineRateBps
           << "]";
    }
}

} // namespace ns3
