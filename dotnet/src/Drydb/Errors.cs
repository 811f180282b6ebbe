// drydb's errors in .NET style. A file problem (I/O, corruption, a format the reader does not
// know) is a DrydbException; misuse (a wrong key type, a bad argument) an ArgumentException
// (DrydbArgumentException, or KeyEncodingMismatchException for a key of another type); an
// unknown table or index a KeyNotFoundException; a call at the wrong time an
// InvalidOperationException. Each drydb exception carries the C API's status as Code.

namespace Drydb;

/// <summary>drydb's error codes: the values of drydb::errc (docs/errors.md), the same numbers
/// the C API returns.</summary>
public enum DrydbErrorCode
{
  /// <summary>A bad argument, option or bound.</summary>
  InvalidArgument = 1,
  /// <summary>A key longer than the page size allows.</summary>
  KeyTooLong = 2,
  /// <summary>Two rows with one key in a table or unique index.</summary>
  DuplicateKey = 3,
  /// <summary>Two tables, or two indexes of a table, with one name.</summary>
  DuplicateName = 4,
  /// <summary>A key of another type than the table's.</summary>
  WrongKeyType = 5,
  /// <summary>An unknown table or index.</summary>
  NotFound = 6,
  /// <summary>The system failed a read or write.</summary>
  IoError = 7,
  /// <summary>A page or header that fails its checks.</summary>
  Corruption = 8,
  /// <summary>A file shorter than its header says.</summary>
  Truncated = 9,
  /// <summary>Not a drydb file.</summary>
  BadMagic = 10,
  /// <summary>A format version this reader does not know.</summary>
  UnsupportedVersion = 11,
  /// <summary>A key encoding this reader does not know.</summary>
  UnknownEncoding = 12,
  /// <summary>A page filter this reader does not know.</summary>
  UnknownFilter = 13,
  /// <summary>A value larger than drydb stores.</summary>
  ValueTooLarge = 14,
  /// <summary>Memory could not be had.</summary>
  OutOfMemory = 15,
  /// <summary>A call at the wrong time.</summary>
  InvalidState = 16,
}

/// <summary>A problem with a drydb file or the system (I/O, corruption, an unknown format).</summary>
public class DrydbException : Exception
{
  /// <summary>What failed.</summary>
  public DrydbErrorCode Code { get; }

  /// <summary>An error with its code and message.</summary>
  public DrydbException(DrydbErrorCode code, string message) : base(message) => Code = code;
}

/// <summary>An argument drydb refuses: a bad option, bound or key, a duplicate.</summary>
public class DrydbArgumentException : ArgumentException
{
  /// <summary>What was wrong.</summary>
  public DrydbErrorCode Code { get; }

  /// <summary>An error with its code and message.</summary>
  public DrydbArgumentException(DrydbErrorCode code, string message) : base(message) => Code = code;
}

/// <summary>A key of another type than the table's or index's key encoding (an int64 key for an
/// ASCII table, say).</summary>
public sealed class KeyEncodingMismatchException : DrydbArgumentException
{
  /// <summary>An error with its message.</summary>
  public KeyEncodingMismatchException(string message) : base(DrydbErrorCode.WrongKeyType, message) { }
}

/// <summary>Turns C API statuses into exceptions.</summary>
internal static unsafe class Errors
{
  /// <summary>The message of the last error on this thread.</summary>
  internal static string LastMessage()
  {
    byte* message = NativeMethods.drydb_last_error_message();
    return message == null ? "" : Marshal.PtrToStringUTF8((IntPtr)message) ?? "";
  }

  /// <summary>Throws the exception `status` (an error, not Ok or End) stands for.</summary>
  internal static Exception ToException(int status)
  {
    string message = LastMessage();
    var code = (DrydbErrorCode)status;
    return code switch
    {
      DrydbErrorCode.WrongKeyType => new KeyEncodingMismatchException(message),
      DrydbErrorCode.InvalidArgument or DrydbErrorCode.KeyTooLong or DrydbErrorCode.DuplicateKey
        or DrydbErrorCode.DuplicateName or DrydbErrorCode.ValueTooLarge =>
        new DrydbArgumentException(code, message),
      DrydbErrorCode.NotFound => new KeyNotFoundException(message),
      DrydbErrorCode.InvalidState => new InvalidOperationException(message),
      _ => new DrydbException(code, message),
    };
  }

  /// <summary>Throws unless status is Ok.</summary>
  [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
  internal static void Check(int status)
  {
    if (status != Status.Ok) Throw(status);
  }

  /// <summary>Throws unless status is Ok or End; true for Ok.</summary>
  [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
  internal static bool CheckFound(int status)
  {
    if (status == Status.Ok) return true;
    if (status != Status.End) Throw(status);
    return false;
  }

  [System.Diagnostics.CodeAnalysis.DoesNotReturn]
  internal static void Throw(int status) => throw ToException(status);
}
