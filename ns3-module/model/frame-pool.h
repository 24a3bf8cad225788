// rdma-cc: the ns-3 Packets of a NIC's frames, reused once their arrival is over
#ifndef RDMACC_FRAME_POOL_H
#define RDMACC_FRAME_POOL_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{
namespace rdmacc
{

class Frame;

/**
 * \ingroup rdma-cc
 * Keeps the ns-3 `Packet` of a frame whose life is over for the next frame of the same size,
 * where building a `Packet` and freeing it again costs ~900 instructions inside ns-3 (its
 * buffer, metadata, tag lists and their allocations): a fifth of a small fabric's work per
 * event.
 *
 * Which frames: those `Make` built (the NICs' data, ACK, NACK, CNP and probe frames, whose
 * bytes are zeros where their header goes, RoceHeader::WriteInto), when their arrival at the
 * next device is done (QbbChannel's arrival event holds the last reference) and nothing read
 * their bytes on the way: RoceHeader::WriteInto calls `Forget` for every frame a trace sink,
 * an RxHandler or another MPI process reads, so such a frame is never reused (its uid, which
 * a sink may have recorded, stays unique among the frames sinks saw). A reused frame is the
 * frame `Create<Packet>(size)` builds, but for its uid: its bytes were never written, and its
 * packet and byte tags are removed (INT's records). A frame someone else still holds a
 * reference to is not reused.
 *
 * The pool is per process and outlives simulations (its frames hold nothing of one); it keeps
 * at most MAX_KEPT frames of each of at most MAX_SIZES sizes, and frees the others.
 * The mark that says "built here, not read" is the Packet's NixVector (used by ns-3's
 * Nix-vector IP routing only; a frame of this fabric never has one otherwise, and a copy of
 * the Packet gets a copy, so a copy is not marked).
 */
class FramePool
{
  public:
    /// Frames kept per size.
    static constexpr uint32_t MAX_KEPT = 4096;
    /// Sizes kept.
    static constexpr uint32_t MAX_SIZES = 8;

    /// \return a frame of `size` zero bytes with no tags, as Create<Packet>(size) builds
    static Ptr<Packet> Make(uint32_t size);
    /// \return Make(size) as a pristine Frame (Frame::Pristine), the only holder of its Packet
    static Frame MakeFrame(uint32_t size);
    /**
     * The end of a frame's arrival: takes over one reference to `p` (which may be null) and
     * keeps the frame for a later Make when that was the last one, Make built it, and it was
     * not forgotten; else releases the reference.
     */
    static void Release(Packet* p);
    /// `p`'s bytes are read (or its uid may be): it is never reused.
    static void Forget(const Packet& p);
    /// \return frames Make reused in this process (tests)
    static uint64_t Reused();

  private:
    friend class Frame;
    /**
     * Release, for a frame whose size the caller knows (Frame: not read from the Packet).
     * \param p the Packet (may be null)
     * \param size its size
     * \param pristine MakeFrame built it and nothing else held or read it: kept without a look
     *        at the Packet (its reference count, mark and tags are known)
     */
    static void Release(Packet* p, uint32_t size, bool pristine);
};

/**
 * \ingroup rdma-cc
 * A frame on its way through the fabric: one reference to its ns-3 `Packet`, and the Packet's
 * size. It moves from holder to holder (a device's queue slot, the link's arrival event, the
 * receiving device, the switch that queues it again) without touching the `Packet` object:
 * no reference counting and no size read on the way. A frame that waited in a loaded queue has
 * left every cache by the time it is sent, and before Frame every hop read its `Packet`'s line
 * again for the reference count and the size (docs/performance.md, "Frames handed over").
 *
 * The size is read once, when a Frame first takes a `Packet`, and must not change while it
 * holds it (the fabric never changes a frame's length: RoceHeader::WriteInto writes the
 * header's bytes in place, INT changes a tag). Destroying a Frame that holds a `Packet` ends
 * that reference: FramePool::Release, which keeps the `Packet` for a later frame when it was
 * the last reference, FramePool::Make built it and nothing read it.
 *
 * A frame FramePool::MakeFrame built is pristine until something reaches its `Packet` through
 * the Frame (operator->, operator*, Share: an INT tag, a trace sink, a copy): then the Frame
 * is its Packet's only holder, its bytes are unwritten and it has no tags, so its end gives it
 * back to the pool without reading it either. A pristine frame's `Packet` is not touched from
 * its MakeFrame to the MakeFrame that reuses it.
 */
class Frame
{
  public:
    Frame() = default;
    /// A reference of its own to `p` (none when `p` is null).
    explicit Frame(const Ptr<Packet>& p);
    /**
     * \param p a Packet
     * \param size its size
     * \return a Frame that takes over one reference the caller holds to `p`
     */
    static Frame Adopt(Packet* p, uint32_t size, bool pristine = false);
    Frame(Frame&& o) noexcept;
    Frame& operator=(Frame&& o) noexcept;
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;
    ~Frame();

    /// \return the Packet, whose reference the caller now holds (this Frame is empty)
    Packet* Detach();
    /// \return a new reference to the Packet, as a Ptr (touches the Packet; no longer pristine)
    Ptr<Packet> Share() const;
    /// \return the Packet (this Frame keeps its reference; no longer pristine)
    Packet* operator->() const;
    /// \return the Packet (no longer pristine)
    Packet& operator*() const;
    /// \return the Packet, only to name it (a log): it stays pristine
    const Packet* Peek() const;
    /// \return the Packet's size in bytes, without reading the Packet
    uint32_t Size() const;
    /// \return whether MakeFrame built it and nothing reached its Packet since
    bool Pristine() const;
    /// \return whether this Frame holds a Packet
    explicit operator bool() const;

  private:
    Packet* m_p = nullptr;          //!< the Packet, with a reference of this Frame's
    uint32_t m_size = 0;            //!< its size
    mutable bool m_pristine{false}; //!< see Pristine
};

inline Frame::Frame(const Ptr<Packet>& p) :
    m_p(PeekPointer(p)),
    m_size(p ? p->GetSize() : 0)
{
    if (m_p != nullptr)
    {
        m_p->Ref();
    }
}

inline Frame
Frame::Adopt(Packet* p, uint32_t size, bool pristine)
{
    Frame f;
    f.m_p = p;
    f.m_size = size;
    f.m_pristine = pristine;
    return f;
}

inline Frame::Frame(Frame&& o) noexcept :
    m_p(o.m_p),
    m_size(o.m_size),
    m_pristine(o.m_pristine)
{
    o.m_p = nullptr;
    o.m_pristine = false;
}

inline Frame&
Frame::operator=(Frame&& o) noexcept
{
    if (this != &o)
    {
        if (m_p != nullptr)
        {
            FramePool::Release(m_p, m_size, m_pristine);
        }
        m_p = o.m_p;
        m_size = o.m_size;
        m_pristine = o.m_pristine;
        o.m_p = nullptr;
        o.m_pristine = false;
    }
    return *this;
}

inline Frame::~Frame()
{
    if (m_p != nullptr)
    {
        FramePool::Release(m_p, m_size, m_pristine);
    }
}

inline Packet*
Frame::Detach()
{
    Packet* p = m_p;
    m_p = nullptr;
    m_pristine = false;
    return p;
}

inline Ptr<Packet>
Frame::Share() const
{
    m_pristine = false;
    return Ptr<Packet>(m_p);
}

inline Packet*
Frame::operator->() const
{
    m_pristine = false;
    return m_p;
}

inline Packet&
Frame::operator*() const
{
    m_pristine = false;
    return *m_p;
}

inline const Packet*
Frame::Peek() const
{
    return m_p;
}

inline uint32_t
Frame::Size() const
{
    return m_size;
}

inline bool
Frame::Pristine() const
{
    return m_pristine;
}

inline Frame::operator bool() const
{
    return m_p != nullptr;
}

} // namespace rdmacc
} // namespace ns3

#endif /* RDMACC_FRAME_POOL_H */
