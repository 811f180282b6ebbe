// Routing a key column to shards without a Python call per row (drydb.dask uses them):
// _drydb.shard_numbers gives each row's shard under a partition function, _drydb.encode_keys the
// encoded keys (a sample's, for range splits). The column is read as append_columns reads its key
// column (columns.h), encoded by drydb::for_each_encoded_key and routed by drydb::shard_of, the
// functions the builder and the readers use, so a row goes where a reader looks for it.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings.h"
#include "columns.h"
#include "drydb/columns.h"
#include "drydb/dataset.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

namespace {

// Each row's shard, a native-order int32 per row (numpy.frombuffer(..., "i4")). The partition
// is checked first (check_partitioning), then every key (append_columns' errors, naming the
// column `name` and the first bad row); the loop runs without the GIL.
py::bytes shard_numbers(py::handle keys, const std::string& key_encoding,
                        const std::string& function, const std::vector<std::string>& splits,
                        uint32_t shards, const std::string& name) {
  const KeyEncoding encoding = encoding_by_id(key_encoding);
  const Partitioning p{function, splits};
  check(check_partitioning(p, shards));
  PythonColumns in;
  in.add(keys, name);
  const ColumnView column = in.views().back();
  // A bytes object of the result's size, written in place: nothing else holds it until it is
  // returned, so it is filled without the GIL.
  auto out = py::reinterpret_steal<py::bytes>(
      PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(column.length * 4)));
  if (!out) throw py::error_already_set();
  auto* numbers = reinterpret_cast<std::byte*>(PyBytes_AS_STRING(out.ptr()));
  status st;
  {
    py::gil_scoped_release unlocked;
    st = for_each_encoded_key(column, encoding, [&](size_t i, std::span<const std::byte> key) {
      const auto shard = static_cast<int32_t>(shard_of(p, shards, key));  // below 65536
      std::memcpy(numbers + 4 * i, &shard, 4);
    });
  }
  check(st);
  return out;
}

// The encoded key of each row, as bytes objects: encoded without the GIL into one buffer, then
// cut into bytes with it.
py::list encode_keys(py::handle keys, const std::string& key_encoding, const std::string& name) {
  const KeyEncoding encoding = encoding_by_id(key_encoding);
  PythonColumns in;
  in.add(keys, name);
  const ColumnView column = in.views().back();
  std::string data;
  std::vector<size_t> ends;
  status st;
  {
    py::gil_scoped_release unlocked;
    ends.reserve(column.length);
    st = for_each_encoded_key(column, encoding, [&](size_t, std::span<const std::byte> key) {
      data.append(reinterpret_cast<const char*>(key.data()), key.size());
      ends.push_back(data.size());
    });
  }
  check(st);
  py::list out(ends.size());
  size_t start = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    out[i] = py::bytes(data.data() + start, ends[i] - start);
    start = ends[i];
  }
  return out;
}

// S - 1 split keys for S range shards from a sample of encoded keys, given as pairs of (the keys
// one after another, the length of each): the keys at even positions of the sample's distinct
// non-empty keys in bytes order (the order drydb sorts keys in). Fewer distinct keys than shards
// give fewer splits. Sorted without the GIL: a sample of 100,000 keys costs the client a few
// milliseconds, where sorting bytes objects in Python took 60.
using SamplePart =
    std::pair<py::bytes, py::array_t<int64_t, py::array::c_style | py::array::forcecast>>;

py::list range_splits(const std::vector<SamplePart>& sample, uint32_t shards) {
  if (shards == 0) throw py::value_error("range_splits: shards is at least 1");
  std::vector<std::string_view> keys;
  for (const auto& [blob, lengths] : sample) {
    const std::string_view data = blob;
    if (lengths.ndim() != 1) throw py::value_error("range_splits: the lengths are one array");
    size_t at = 0;
    // Read with memcpy: an array that came through pickle (a sample task's, from a Dask worker)
    // may lie at an address no int64 may be read from directly.
    const auto* raw = reinterpret_cast<const std::byte*>(lengths.data());
    for (size_t k = 0; k < static_cast<size_t>(lengths.size()); ++k) {
      int64_t n;
      std::memcpy(&n, raw + k * sizeof n, sizeof n);
      if (n < 0 || static_cast<uint64_t>(n) > data.size() - at) {
        throw py::value_error("range_splits: the lengths overrun their keys");
      }
      if (n > 0) keys.push_back(data.substr(at, static_cast<size_t>(n)));
      at += static_cast<size_t>(n);
    }
    if (at != data.size()) throw py::value_error("range_splits: the lengths leave keys over");
  }
  std::vector<std::string_view> splits;
  {
    py::gil_scoped_release unlocked;
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    const uint64_t n = keys.size();
    for (uint64_t i = 1; i < shards && n > 0; ++i) {
      const std::string_view k = keys[std::min(n - 1, i * n / shards)];
      if (splits.empty() || k > splits.back()) splits.push_back(k);
    }
  }
  py::list out;
  for (const std::string_view k : splits)
    out.append(py::bytes(k.data(), k.size()));
  return out;
}

}  // namespace

void bind_partition(py::module_& m) {
  m.def("shard_numbers", &shard_numbers, py::arg("keys"), py::arg("key_encoding"),
        py::arg("function"), py::arg("splits"), py::arg("shards"), py::kw_only(),
        py::arg("name") = "key",
        "The shard of each key of a column (a NumPy array, a (values, mask) pair, an Arrow "
        "array, a buffer) under a partition function, as shard_of gives it: bytes of one "
        "native-order int32 per row (numpy.frombuffer(b, 'i4')). Raises as append_columns "
        "does for a bad key (a null, floats for int64 keys), naming the column `name` and the "
        "first bad row, and for a partitioning that does not fit `shards`.");
  m.def("encode_keys", &encode_keys, py::arg("keys"), py::arg("key_encoding"), py::kw_only(),
        py::arg("name") = "key",
        "The encoded bytes of each key of a column, as encode_key gives them; raises as "
        "shard_numbers does.");
  m.def("range_splits", &range_splits, py::arg("sample"), py::arg("shards"),
        "shards - 1 split keys from a sample of encoded keys, given as (bytes of the keys one "
        "after another, an int64 array of their lengths) pairs: the keys at even positions of "
        "its distinct non-empty keys in bytes order; fewer when it has fewer distinct keys.");
}

}  // namespace drydb::python
