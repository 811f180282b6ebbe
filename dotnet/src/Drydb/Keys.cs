// Keys and bounds handed to the C API without allocating: UTF-8 text in a stack buffer (or a
// pooled array for long keys), integers in the key struct itself.

namespace Drydb;

/// <summary>A string's UTF-8 bytes, in the caller's stack buffer when they fit, else in a pooled
/// array returned by Dispose.</summary>
internal ref struct Utf8Key
{
  internal const int StackBytes = 256;
  private byte[]? rented;
  internal ReadOnlySpan<byte> Bytes;

  internal Utf8Key(string? text, Span<byte> stack)
  {
    rented = null;
    if (string.IsNullOrEmpty(text))
    {
      Bytes = default;
      return;
    }
    Span<byte> target = stack;
    if (Encoding.UTF8.GetMaxByteCount(text!.Length) > stack.Length)
    {
      rented = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetByteCount(text));
      target = rented;
    }
    int size = Encoding.UTF8.GetBytes(text.AsSpan(), target);
    Bytes = target.Slice(0, size);
  }

  public void Dispose()
  {
    if (rented != null) ArrayPool<byte>.Shared.Return(rented);
    rented = null;
  }
}

/// <summary>Builds the C API's key and bound structs.</summary>
internal static unsafe class Keys
{
  /// <summary>A bound over the bytes at `data` (of a key of `kind`: bytes, or a UUID's or
  /// ULID's 16): an empty key is no bound (the C# DryDB's rule).</summary>
  internal static NativeBound Bound(byte* data, int size, bool exclusive, int kind)
  {
    NativeBound bound = default;
    if (size == 0) return bound;
    bound.Kind = exclusive ? NativeBound.Exclusive : NativeBound.Inclusive;
    bound.Key = NativeKey.Bytes(data, size, kind);
    return bound;
  }

  /// <summary>A bound on an integer; null is no bound.</summary>
  internal static NativeBound Bound(long? value, bool exclusive)
  {
    NativeBound bound = default;
    if (value == null) return bound;
    bound.Kind = exclusive ? NativeBound.Exclusive : NativeBound.Inclusive;
    bound.Key = NativeKey.Integer(value.Value);
    return bound;
  }

  /// <summary>The int64 a stored 8-byte key holds (big-endian, sign bit flipped).</summary>
  internal static long DecodeInt64(ReadOnlySpan<byte> stored)
  {
    if (stored.Length != 8) throw new InvalidOperationException("an int64 key is 8 bytes");
    return (long)(System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(stored) ^ 0x8000_0000_0000_0000UL);
  }

  /// <summary>A UUID's 16 bytes in RFC 9562 (big-endian) order.</summary>
  internal static void WriteUuid(Guid value, Span<byte> bytes)
  {
    value.TryWriteBytes(bytes);  // .NET's order: the first three fields little-endian
    bytes.Slice(0, 4).Reverse();
    bytes.Slice(4, 2).Reverse();
    bytes.Slice(6, 2).Reverse();
  }

  /// <summary>The Guid whose RFC 9562 bytes are `bytes`.</summary>
  internal static Guid ReadUuid(ReadOnlySpan<byte> bytes)
  {
    Span<byte> copy = stackalloc byte[16];
    bytes.Slice(0, 16).CopyTo(copy);
    copy.Slice(0, 4).Reverse();
    copy.Slice(4, 2).Reverse();
    copy.Slice(6, 2).Reverse();
    return new Guid(copy);
  }

  /// <summary>UTF-8 of a name, for table and index look-ups (not on a query's path).</summary>
  internal static byte[] Name(string name)
  {
    if (name == null) throw new ArgumentNullException(nameof(name));
    return Encoding.UTF8.GetBytes(name);
  }

  internal static string Text(byte* data, nuint size) =>
    size == 0 ? "" : Encoding.UTF8.GetString(data, checked((int)size));
}
