/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-header.h"

#include "frame-pool.h"
#include "pfc-header.h"
#include "qbb-net-device.h"

#include "rdma-cc/src/transport.rs.h"
#include "rdma-cc/src/wire.rs.h"

#include <cstring>

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
    return Size();
}

std::ostream&
operator<<(std::ostream& os, const RoceFields& f)
{
    RoceHeader(f).Print(os);
    return os;
}

std::ostream&
operator<<(std::ostream& os, const RoceHeader& h)
{
    h.Print(os);
    return os;
}

namespace
{
/// The largest serialised RoceHeader: a CNP with the INT header
constexpr uint32_t MAX_BYTES =
    RoceHeader::DATA_OVERHEAD + RoceHeader::CNP_PAYLOAD + RoceHeader::INT_BYTES;

// Big-endian (network order) fields through one load or store each: the byte-by-byte form
// compiled to a shift and a byte store per byte (Serialize was ~170 instructions per frame)
template <typename U>
U
ToBig(U v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if constexpr (sizeof(U) == 2)
    {
        return __builtin_bswap16(v);
    }
    else if constexpr (sizeof(U) == 4)
    {
        return __builtin_bswap32(v);
    }
    else
    {
        static_assert(sizeof(U) == 8, "16, 32 or 64 bits");
        return __builtin_bswap64(v);
    }
#else
    return v;
#endif
}

template <typename U>
void
Put(uint8_t* b, U v)
{
    v = ToBig(v);
    std::memcpy(b, &v, sizeof v);
}

template <typename U>
U
Get(const uint8_t* b)
{
    U v;
    std::memcpy(&v, b, sizeof v);
    return ToBig(v);
}

void
PutU16(uint8_t* b, uint16_t v)
{
    Put(b, v);
}

void
PutU32(uint8_t* b, uint32_t v)
{
    Put(b, v);
}

void
PutU64(uint8_t* b, uint64_t v)
{
    Put(b, v);
}

uint16_t
GetU16(const uint8_t* b)
{
    return Get<uint16_t>(b);
}

uint32_t
GetU32(const uint8_t* b)
{
    return Get<uint32_t>(b);
}

uint64_t
GetU64(const uint8_t* b)
{
    return Get<uint64_t>(b);
}
} // namespace

// The bytes are built in a local array and written with one Buffer::Iterator::Write (read with
// one Packet::CopyData in PeekFrom): a Buffer::Iterator call per field costs a bounds check
// per byte in ns-3's own library, and was the largest part of a frame's per-hop cost.
void
RoceHeader::Serialize(Buffer::Iterator i) const
{
    const uint32_t size = GetSerializedSize();
    uint8_t b[MAX_BYTES] = {};
    // Ethernet (14): MACs unused but for the timestamp (first 8 bytes) and the priority (last
    // byte), EtherType IPv4
    PutU64(b, ts);
    b[8] = kind == DATA ? scheme : 0;
    b[11] = prio;
    PutU16(b + 12, 0x0800);
    // IPv4 (20): version/IHL, DSCP/ECN, ..., protocol 17, addresses
    b[14] = 0x45;
    b[15] = static_cast<uint8_t>((prio << 5) | (ecn & 3));
    PutU16(b + 16, static_cast<uint16_t>(size - 18));
    b[18] = kind;
    b[19] = flags;
    b[22] = 64;
    b[23] = 17;
    PutU32(b + 26, srcIp);
    PutU32(b + 30, dstIp);
    // UDP (8)
    PutU16(b + 34, srcPort);
    PutU16(b + 36, dstPort);
    // BTH (12): QPN and the sequence number (bytes, 64 bit here)
    PutU32(b + 42, flowId);
    PutU64(b + 46, seq);
    // AETH / CNP payload, then ICRC + FCS: zeros, but for the message size of a data packet
    if (kind == DATA)
    {
        PutU64(b + 54, msgSize);
    }
    i.Write(b, size);
}

void
RoceFields::Parse(const uint8_t* b)
{
    ts = GetU64(b);
    scheme = b[8];
    prio = b[11];
    ecn = b[15] & 3;
    kind = static_cast<Kind>(b[18]);
    flags = b[19];
    srcIp = GetU32(b + 26);
    dstIp = GetU32(b + 30);
    srcPort = GetU16(b + 34);
    dstPort = GetU16(b + 36);
    flowId = GetU32(b + 42);
    seq = GetU64(b + 46);
    if (kind == DATA)
    {
        msgSize = GetU64(b + 54);
    }
    else
    {
        msgSize = 0;
        scheme = 0;
    }
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator i)
{
    uint8_t b[PEEK_BYTES];
    i.Read(b, 54);
    if (b[18] == DATA)
    {
        i.Read(b + 54, 8);
    }
    Parse(b);
    return GetSerializedSize();
}

void
RoceHeader::WriteInto(Packet& p, const RoceFields& h, uint32_t hdrBytes)
{
    if (hdrBytes == 0)
    {
        return;
    }
    NS_ASSERT(hdrBytes == h.Size());
    rdmacc::FramePool::Forget(p); // read: never reused
    p.RemoveAtStart(hdrBytes);
    p.AddHeader(RoceHeader(h));
}

uint32_t
RoceFields::PeekFrom(const Packet& p)
{
    uint8_t b[PEEK_BYTES];
    if (p.CopyData(b, PEEK_BYTES) < PEEK_BYTES)
    {
        return 0;
    }
    Parse(b);
    return Size();
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
