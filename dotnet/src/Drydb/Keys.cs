// Keys and bounds handed to the C API without allocating: UTF-8 text in a stack buffer (or a
// pooled array for long keys), integers in the key struct itself.

namespace Drydb;

/// <summary>A string's UTF-8 bytes, in the caller's stack buffer when they fit, else in a pooled
/// array returned by Dispose. A lone surrogate (no UTF-8 encodes it) is an ArgumentException
/// naming `parameter`, never U+FFFD, which is another key.</summary>
internal ref struct Utf8Key
{
  internal const int StackBytes = 256;
  private byte[]? rented;
  internal ReadOnlySpan<byte> Bytes;

  internal Utf8Key(string? text, Span<byte> stack, string parameter)
  {
    rented = null;
    if (string.IsNullOrEmpty(text))
    {
      Bytes = default;
      return;
    }
    Span<byte> target = stack;
    if (NativeText.Utf8.GetMaxByteCount(text!.Length) > stack.Length)
    {
      rented = ArrayPool<byte>.Shared.Rent(NativeText.ByteCount(text, parameter));
      target = rented;
    }
    Bytes = target.Slice(0, NativeText.Encode(text.AsSpan(), target, parameter));
  }

  public void Dispose()
  {
    if (rented != null) ArrayPool<byte>.Shared.Return(rented);
    rented = null;
  }
}

/// <summary>Text on its way to native code: strict UTF-8 (a lone surrogate is refused, not made
/// U+FFFD), and paths and names refused when they hold a NUL, where C would end them. Every
/// string the package hands to the C API goes through here.</summary>
internal static class NativeText
{
  /// <summary>UTF-8 that throws on a lone surrogate instead of replacing it.</summary>
  internal static readonly UTF8Encoding Utf8 = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false,
                                                                throwOnInvalidBytes: true);

  /// <summary>The UTF-8 size of `text`; a lone surrogate is an ArgumentException naming `parameter`.</summary>
  internal static int ByteCount(string text, string parameter)
  {
    try
    {
      return Utf8.GetByteCount(text);
    }
    catch (EncoderFallbackException e)
    {
      throw LoneSurrogate(parameter, e);
    }
  }

  /// <summary>Encodes `text` into `target` (large enough); its size.</summary>
  internal static int Encode(ReadOnlySpan<char> text, Span<byte> target, string parameter)
  {
    try
    {
      return Utf8.GetBytes(text, target);
    }
    catch (EncoderFallbackException e)
    {
      throw LoneSurrogate(parameter, e);
    }
  }

  /// <summary>UTF-8 of a key, index key or name (no NUL check: keys may hold any byte).</summary>
  internal static byte[] Bytes(string text, string parameter)
  {
    byte[] utf8 = new byte[ByteCount(text, parameter)];
    Encode(text.AsSpan(), utf8, parameter);
    return utf8;
  }

  /// <summary>UTF-8 of a table or index name, for creating or looking one up.</summary>
  internal static byte[] Name(string name, string parameter)
  {
    ThrowIfNul(name, parameter, "a name");
    return Bytes(name, parameter);
  }

  /// <summary>NUL-terminated UTF-8 of a file or folder path, as the C API takes it.</summary>
  internal static byte[] Path(string path, string parameter)
  {
    ThrowIfNul(path, parameter, "a path");
    byte[] utf8 = new byte[ByteCount(path, parameter) + 1];
    Encode(path.AsSpan(), utf8, parameter);
    return utf8;
  }

  /// <summary>Refuses null, and a NUL anywhere in `text` (`what`: "a path", "a name").</summary>
  internal static void ThrowIfNul(string? text, string parameter, string what)
  {
    if (text == null) throw new ArgumentNullException(parameter);
    if (text.IndexOf('\0') >= 0)
      throw new ArgumentException($"drydb: {what} holds a NUL character (native code would end it there)", parameter);
  }

  private static ArgumentException LoneSurrogate(string parameter, Exception inner) =>
    new ArgumentException("drydb: the text holds a lone surrogate, which UTF-8 cannot encode", parameter, inner);
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


  internal static string Text(byte* data, nuint size) =>
    size == 0 ? "" : Encoding.UTF8.GetString(data, checked((int)size));
}
