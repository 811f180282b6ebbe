// The core public API of drydb (builder.h includes columns.h). Read builder.h and database.h
// first. Included on their own: msgpack.h (typed tables, needs msgpack-cxx); dataset.h,
// sharded.h, live_dataset.h, diff.h (the drydb::dataset library); build_points.h (a test seam);
// c.h (the C API).
#pragma once

#include "drydb/async.h"
#include "drydb/atomic_file.h"
#include "drydb/builder.h"
#include "drydb/cursor.h"
#include "drydb/database.h"
#include "drydb/error.h"
#include "drydb/escape.h"
#include "drydb/executor.h"
#include "drydb/index.h"
#include "drydb/key.h"
#include "drydb/key_encoding.h"
#include "drydb/limits.h"
#include "drydb/options.h"
#include "drydb/page_filter.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/row.h"
#include "drydb/stats.h"
#include "drydb/storage.h"
#include "drydb/table.h"
#include "drydb/ulid.h"
#include "drydb/uuid.h"
#include "drydb/value.h"
