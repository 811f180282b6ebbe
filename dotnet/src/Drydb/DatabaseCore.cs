// The native database behind a ReadOnlyDatabase, and the leases that keep it open while .NET
// code views its pages.
//
// Every value span, range and iterator views memory the native database owns, so the database
// closes only when none is live: ReadOnlyDatabase.Dispose marks the core disposed (new queries
// throw ObjectDisposedException) and the core closes when the last lease ends — at once when
// none is live.
//
// The leases of gets and ranges are slots: a native drydb_value or drydb_range holder with a
// Busy flag. A thread keeps one slot of each kind per database (its owned slot) and takes it
// with plain writes — no interlocked operation on a get's path. A result's Dispose clears
// Busy; the closer sets Disposed, then (where the runtime has it) runs a process-wide memory
// barrier before reading every slot's Busy, so a query either sees Disposed or is seen busy.
// Nested results (a second range while one is live on the thread) take unowned slots from a
// free list under a lock. Iterators, which are objects with finalizers, hold a counted lease.

namespace Drydb;

/// <summary>A native holder (drydb_value or drydb_range) leased to one result at a time.</summary>
internal sealed class NativeSlot
{
  internal readonly DatabaseCore Core;
  internal readonly bool IsRange;
  internal IntPtr Handle;
  // 1 while a result holds the slot. Written by the taker and by the result's Dispose.
  internal int Busy;
  // Bumped by each release: a stale copy of a result (a struct copied before Dispose) finds its
  // token changed and does nothing.
  internal int Token;
  // A range slot's walks: bumped by each walk begun (RangeResult.GetEnumerator, which rewinds
  // the one native range), so that an enumerator of an earlier walk finds it changed and refuses
  // to go on over the newer walk's rows.
  internal int Walk;
  // The slot of one thread (t_valueSlot / t_rangeSlot); only that thread takes an owned slot.
  internal bool Owned;
  internal bool InFreeList;

  internal NativeSlot(DatabaseCore core, bool isRange, IntPtr handle)
  {
    Core = core;
    IsRange = isRange;
    Handle = handle;
  }

  /// <summary>Ends the lease taken with `token` (a no-op for a stale token).</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  internal void Release(int token)
  {
    // A stale copy's token no longer matches. (Disposing two copies of one result at once, on
    // two threads, is a race the caller must not run, as disposing any object twice at once.)
    if (Token != token) return;
    Token = token + 1;
#if NETCOREAPP3_0_OR_GREATER
    Volatile.Write(ref Busy, 0);
#else
    Interlocked.Exchange(ref Busy, 0);  // no process-wide barrier in the closer: a full fence here
#endif
    if (!Owned) Core.ReturnUnowned(this);
    if (Volatile.Read(ref Core.DisposedFlag) != 0) Core.TryClose();
  }

  /// <summary>Throws if the lease taken with `token` has ended.</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  internal void CheckLive(int token)
  {
    if (Token != token) ThrowReleased();
  }

  private static void ThrowReleased() =>
    throw new ObjectDisposedException("result", "The result was disposed: its spans no longer view the database.");
}

/// <summary>The native database and its leases.</summary>
internal sealed unsafe class DatabaseCore
{
  [ThreadStatic] private static NativeSlot? t_valueSlot;
  [ThreadStatic] private static NativeSlot? t_rangeSlot;

  internal IntPtr Handle;
  internal int DisposedFlag;
  private bool closed;
  private int liveObjects;  // iterators and other counted leases
  private readonly object gate = new object();
  private readonly List<NativeSlot> slots = new List<NativeSlot>();
  private readonly Stack<NativeSlot> freeValueSlots = new Stack<NativeSlot>();
  private readonly Stack<NativeSlot> freeRangeSlots = new Stack<NativeSlot>();
  // Memory drydb_db_open_memory reads (a copy of the caller's bytes), freed after the close.
  private IntPtr ownedMemory;
  // A sharded dataset (drydb_dataset) rather than a database (drydb_db).
  private readonly bool isDataset;
  // Run once the native handle is closed (a pin's release of its live dataset).
  private readonly Action? onClosed;

  internal DatabaseCore(IntPtr handle, IntPtr ownedMemory, bool isDataset = false, Action? onClosed = null)
  {
    Handle = handle;
    this.ownedMemory = ownedMemory;
    this.isDataset = isDataset;
    this.onClosed = onClosed;
  }

  /// <summary>Takes a value holder for one get; the caller releases it with its token.</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  internal NativeSlot TakeValueSlot() => Take(t_valueSlot, isRange: false);

  /// <summary>Takes a range holder for one range; released as a value holder is.</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  internal NativeSlot TakeRangeSlot() => Take(t_rangeSlot, isRange: true);

  // The thread's own slot of the kind when it is this database's and idle, else TakeSlow's.
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  private NativeSlot Take(NativeSlot? slot, bool isRange)
  {
    if (slot == null || slot.Core != this || Volatile.Read(ref slot.Busy) != 0) return TakeSlow(isRange);
    Enter(slot);
    return slot;
  }

  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  private void Enter(NativeSlot slot)
  {
#if NETCOREAPP3_0_OR_GREATER
    Volatile.Write(ref slot.Busy, 1);
#else
    Interlocked.Exchange(ref slot.Busy, 1);  // no process-wide barrier here: a full fence
#endif
    if (Volatile.Read(ref DisposedFlag) != 0) Refuse(slot);
  }

  private void Refuse(NativeSlot slot)
  {
    slot.Release(slot.Token);
    throw new ObjectDisposedException(nameof(ReadOnlyDatabase));
  }

  private NativeSlot TakeSlow(bool isRange)
  {
    NativeSlot? slot = null;
    NativeSlot? previous = null;  // this thread's slot for another database, given back below
    ref NativeSlot? threadSlot = ref (isRange ? ref t_rangeSlot : ref t_valueSlot);
    bool own = threadSlot == null || threadSlot.Core != this;
    lock (gate)
    {
      if (closed || Volatile.Read(ref DisposedFlag) != 0) throw new ObjectDisposedException(nameof(ReadOnlyDatabase));
      // An unowned slot from the free list; failing that, one whose release missed the list
      // (its holder read Owned just before its owner gave it up).
      Stack<NativeSlot> free = isRange ? freeRangeSlots : freeValueSlots;
      while (free.Count > 0 && slot == null)
      {
        NativeSlot candidate = free.Pop();
        candidate.InFreeList = false;
        if (candidate.Busy == 0 && !candidate.Owned) slot = candidate;
      }
      if (slot == null)
      {
        foreach (NativeSlot candidate in slots)
        {
          if (candidate.IsRange == isRange && candidate.Busy == 0 && !candidate.Owned && !candidate.InFreeList)
          {
            slot = candidate;
            break;
          }
        }
      }
      if (slot == null)
      {
        IntPtr handle;
        int status = isDataset
          ? (isRange ? NativeMethods.drydb_dataset_range_create(Handle, &handle)
                     : NativeMethods.drydb_dataset_value_create(Handle, &handle))
          : (isRange ? NativeMethods.drydb_range_create(Handle, &handle)
                     : NativeMethods.drydb_value_create(Handle, &handle));
        Errors.Check(status);
        slot = new NativeSlot(this, isRange, handle);
        slots.Add(slot);
      }
      slot.Busy = 1;
      if (own)
      {
        previous = threadSlot;
        slot.Owned = true;
        threadSlot = slot;
        if (previous != null) previous.Owned = false;
      }
    }
    // Outside this database's lock: ReturnUnowned takes the other database's (two threads
    // switching between two databases would otherwise take the two locks in opposite orders).
    if (previous != null) previous.Core.ReturnUnowned(previous);
    return slot;
  }

  /// <summary>Puts an unowned, idle slot on the free list.</summary>
  internal void ReturnUnowned(NativeSlot slot)
  {
    lock (gate)
    {
      if (closed || slot.Owned || slot.InFreeList || Volatile.Read(ref slot.Busy) != 0) return;
      slot.InFreeList = true;
      (slot.IsRange ? freeRangeSlots : freeValueSlots).Push(slot);
    }
  }

  /// <summary>A counted lease (an iterator's), ended by EndObjectLease.</summary>
  internal void BeginObjectLease()
  {
    Interlocked.Increment(ref liveObjects);
    if (Volatile.Read(ref DisposedFlag) != 0)
    {
      EndObjectLease();
      throw new ObjectDisposedException(nameof(ReadOnlyDatabase));
    }
  }

  internal void EndObjectLease()
  {
    Interlocked.Decrement(ref liveObjects);
    if (Volatile.Read(ref DisposedFlag) != 0) TryClose();
  }

  internal bool IsDisposed => Volatile.Read(ref DisposedFlag) != 0;

  /// <summary>Refuses new queries; closes now if nothing is live, else when the last lease ends.</summary>
  internal void Dispose()
  {
    Interlocked.Exchange(ref DisposedFlag, 1);
    TryClose();
  }

  /// <summary>True once the native database is closed.</summary>
  internal bool IsClosed
  {
    get { lock (gate) return closed; }
  }

  internal void TryClose()
  {
    lock (gate)
    {
      if (closed) return;
      if (!CloseIfIdle()) return;
    }
    onClosed?.Invoke();
  }

  // Under gate: closes the native handle unless a lease is live; true when it closed.
  private bool CloseIfIdle()
  {
#if NETCOREAPP3_0_OR_GREATER
    // Pairs with the plain write of Busy in Enter: after this, a taker that set Busy before the
    // barrier is seen busy, and one after it sees DisposedFlag.
    Interlocked.MemoryBarrierProcessWide();
#endif
    if (Volatile.Read(ref liveObjects) != 0) return false;
    foreach (NativeSlot slot in slots)
    {
      if (Volatile.Read(ref slot.Busy) != 0) return false;
    }
    foreach (NativeSlot slot in slots)
    {
      if (slot.IsRange) NativeMethods.drydb_range_release(slot.Handle);
      else NativeMethods.drydb_value_release(slot.Handle);
      slot.Handle = IntPtr.Zero;
      slot.Owned = false;
    }
    slots.Clear();
    freeValueSlots.Clear();
    freeRangeSlots.Clear();
    int status = isDataset ? NativeMethods.drydb_dataset_close(Handle) : NativeMethods.drydb_db_close(Handle);
    closed = true;
    Handle = IntPtr.Zero;
    if (ownedMemory != IntPtr.Zero)
    {
      System.Runtime.InteropServices.Marshal.FreeHGlobal(ownedMemory);
      ownedMemory = IntPtr.Zero;
    }
    // Every drydb handle was released above, so the close cannot be refused.
    System.Diagnostics.Debug.Assert(status == Status.Ok);
    return true;
  }
}
