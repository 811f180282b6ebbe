// The tables of a database or dataset, and the indexes of a table: read once when their owner
// opens, listed in file order and looked up by name.

namespace Drydb;

/// <summary>Named items (tables, indexes), in order and by name.</summary>
internal sealed unsafe class NamedItems<T> where T : class
{
  private readonly string[] names;
  private readonly Dictionary<string, T> byName = new Dictionary<string, T>(StringComparer.Ordinal);
  // How the message of an unknown name begins ("no table"): "drydb: no table named \"x\"".
  private readonly string missing;

  /// <summary>The items of `owner` (a native handle): `count` says how many, `at` gives each
  /// one's handle, `create` makes the item of a handle and `name` names it.</summary>
  internal NamedItems(IntPtr owner, ResultCall<nuint> count, ItemAtCall at, Func<IntPtr, T> create,
                      Func<T, string> name, string missing)
  {
    nuint n;
    Errors.Check(count(owner, &n));
    names = new string[(int)n];
    for (nuint i = 0; i < n; i++)
    {
      IntPtr handle;
      Errors.Check(at(owner, i, &handle));
      T item = create(handle);
      names[(int)i] = name(item);
      byName[names[(int)i]] = item;
    }
    this.missing = missing;
  }

  internal IReadOnlyList<string> Names => names;

  /// <summary>The item named `name`; a KeyNotFoundException when there is none.</summary>
  internal T Get(string name)
  {
    if (TryGet(name, out T? item)) return item;
    throw new KeyNotFoundException($"drydb: {missing} named \"{name}\"");
  }

  /// <summary>The item named `name`, or false. A name holding a NUL is an ArgumentException, as
  /// everywhere the package takes a table's or index's name.</summary>
  internal bool TryGet(string name, [System.Diagnostics.CodeAnalysis.MaybeNullWhen(false)] out T item)
  {
    NativeText.ThrowIfNul(name, nameof(name), "a name");
    return byName.TryGetValue(name, out item);
  }
}
