// The Stream forms of open and build (async methods cannot live in the unsafe classes).

namespace Drydb;

internal static class StreamIo
{
  internal static async ValueTask<ReadOnlyDatabase> OpenAsync(Stream stream, DatabaseLoadOptions? options,
                                                             CancellationToken cancellationToken)
  {
    if (stream == null) throw new ArgumentNullException(nameof(stream));
    using var copy = new MemoryStream();
    await stream.CopyToAsync(copy, 81920, cancellationToken).ConfigureAwait(false);
    return ReadOnlyDatabase.Open(new ReadOnlySpan<byte>(copy.GetBuffer(), 0, (int)copy.Length), options);
  }

  // Writes the bytes of a build under way (DatabaseBuilder.BuildToStreamAsync) to `stream`.
  internal static async ValueTask WriteAsync(Task<byte[]> build, Stream stream, CancellationToken cancellationToken)
  {
    byte[] bytes = await build.ConfigureAwait(false);
    await stream.WriteAsync(bytes, 0, bytes.Length, cancellationToken).ConfigureAwait(false);
  }
}
