// The whole public API of drydb. Read builder.h and database.h first.
#pragma once

#include "drydb/async.h"
#include "drydb/builder.h"
#include "drydb/cursor.h"
#include "drydb/database.h"
#include "drydb/error.h"
#include "drydb/executor.h"
#include "drydb/key.h"
#include "drydb/key_encoding.h"
#include "drydb/options.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/storage.h"
#include "drydb/table.h"
#include "drydb/ulid.h"
#include "drydb/uuid.h"
#include "drydb/value.h"
