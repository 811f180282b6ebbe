// MessagePack typed tables: rows whose values are T serialised by MessagePack-CSharp (a
// [MessagePackObject] class with [Key(n)] members is a MessagePack array, as the C# DryDB
// writes it; the drydb tool's dump shows such values as JSON).
using System;
using System.Collections.Generic;
using MessagePack;

namespace Drydb.MessagePack;

/// <summary>The entry points: <c>AsMessagePackSerializable&lt;T&gt;()</c> on table builders and
/// tables, and <c>GetTable&lt;T&gt;</c> on databases.</summary>
public static class MessagePackExtensions
{
  /// <summary>A typed view of a table builder: rows appended as T.</summary>
  public static MessagePackTableBuilder<T> AsMessagePackSerializable<T>(this TableBuilder builder,
                                                                        MessagePackSerializerOptions? options = null) =>
    new MessagePackTableBuilder<T>(builder ?? throw new ArgumentNullException(nameof(builder)), options);

  /// <summary>A typed view of a table: values read as T.</summary>
  public static MessagePackReadOnlyTable<T> AsMessagePackSerializable<T>(this ReadOnlyTable table,
                                                                          MessagePackSerializerOptions? options = null) =>
    new MessagePackReadOnlyTable<T>(table ?? throw new ArgumentNullException(nameof(table)), options);

  /// <summary>The table named `name`, its values read as T.</summary>
  public static MessagePackReadOnlyTable<T> GetTable<T>(this ReadOnlyDatabase database, string name,
                                                         MessagePackSerializerOptions? options = null) =>
    database.GetTable(name).AsMessagePackSerializable<T>(options);
}

/// <summary>A table builder whose rows are T, serialised with MessagePack.</summary>
public sealed class MessagePackTableBuilder<T>
{
  private readonly MessagePackSerializerOptions options;

  internal MessagePackTableBuilder(TableBuilder table, MessagePackSerializerOptions? options)
  {
    Table = table;
    this.options = options ?? MessagePackSerializer.DefaultOptions;
  }

  /// <summary>The untyped table builder.</summary>
  public TableBuilder Table { get; }

  /// <summary>Appends a row with a text key.</summary>
  public void Append(string key, T value) => Table.Append(key, MessagePackSerializer.Serialize(value, options));

  /// <summary>Appends a row with an int64 key.</summary>
  public void Append(long key, T value) => Table.Append(key, MessagePackSerializer.Serialize(value, options));

  /// <summary>Appends a row with a bytes key.</summary>
  public void Append(ReadOnlySpan<byte> key, T value) => Table.Append(key, MessagePackSerializer.Serialize(value, options));

  /// <summary>Declares a secondary index whose key `factory` computes from the row's key and its
  /// deserialised value (a string, long, int, Guid or bytes; null leaves the row out).</summary>
  public MessagePackTableBuilder<T> AddSecondaryIndex<TIndex>(string name, bool isUnique, KeyEncoding encoding,
                                                              Func<ReadOnlyMemory<byte>, T, TIndex> factory)
  {
    if (factory == null) throw new ArgumentNullException(nameof(factory));
    Table.AddSecondaryIndex<TIndex>(name, isUnique, encoding,
                                    (key, value) => factory(key, MessagePackSerializer.Deserialize<T>(value, options)));
    return this;
  }
}

/// <summary>A table whose values are T, deserialised with MessagePack.</summary>
public sealed class MessagePackReadOnlyTable<T>
{
  private readonly MessagePackSerializerOptions options;

  internal MessagePackReadOnlyTable(ReadOnlyTable table, MessagePackSerializerOptions? options)
  {
    Table = table;
    this.options = options ?? MessagePackSerializer.DefaultOptions;
  }

  /// <summary>The untyped table.</summary>
  public ReadOnlyTable Table { get; }

  /// <summary>The value of a text key, or default when absent.</summary>
  public T? Get(string key)
  {
    using SingleValueResult result = Table.Get(key);
    return Decode(result);
  }

  /// <summary>The value of an int64 key, or default when absent.</summary>
  public T? Get(long key)
  {
    using SingleValueResult result = Table.Get(key);
    return Decode(result);
  }

  /// <summary>The value of a bytes key, or default when absent.</summary>
  public T? Get(ReadOnlySpan<byte> key)
  {
    using SingleValueResult result = Table.Get(key);
    return Decode(result);
  }

  /// <summary>The values between two text keys (null = no bound).</summary>
  public List<T> GetRange(string? startKey, string? endKey, bool startKeyExclusive = false, bool endKeyExclusive = false,
                          SortOrder sortOrder = SortOrder.Ascending)
  {
    using RangeResult range = Table.GetRange(startKey, endKey, startKeyExclusive, endKeyExclusive, sortOrder);
    return Decode(range);
  }

  /// <summary>The values between two int64 keys (null = no bound).</summary>
  public List<T> GetRange(long? startKey, long? endKey, bool startKeyExclusive = false, bool endKeyExclusive = false,
                          SortOrder sortOrder = SortOrder.Ascending)
  {
    using RangeResult range = Table.GetRange(startKey, endKey, startKeyExclusive, endKeyExclusive, sortOrder);
    return Decode(range);
  }

  /// <summary>The values of every row whose index key is `key`, in primary-key order.</summary>
  public List<T> GetAll(string index, string key, SortOrder sortOrder = SortOrder.Ascending)
  {
    using RangeResult range = Table.Index(index).GetAll(key, sortOrder);
    return Decode(range);
  }

  /// <summary>The values of every row whose int64 index key is `key`, in primary-key order.</summary>
  public List<T> GetAll(string index, long key, SortOrder sortOrder = SortOrder.Ascending)
  {
    using RangeResult range = Table.Index(index).GetAll(key, sortOrder);
    return Decode(range);
  }

  private T? Decode(in SingleValueResult result) =>
    result.HasValue ? MessagePackSerializer.Deserialize<T>(result.Span.ToArray(), options) : default;

  private List<T> Decode(in RangeResult range)
  {
    var values = new List<T>(range.Count);
    foreach (ReadOnlySpan<byte> value in range) values.Add(MessagePackSerializer.Deserialize<T>(value.ToArray(), options));
    return values;
  }
}
