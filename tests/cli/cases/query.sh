# The scripting commands on a small database: get, scan, range, prefix, count, tables, info and
# stats, with --table, --index, --format, --hex, --limit, --offset and the range flags.
run drydb build items.drydb -i "$DATA/items.jsonl" --quiet \
  --table items --key id --index kind=kind --index color=color --index price=price,int64,unique \
  --table prices --key price --key-encoding int64 --value id
expect_status 0
expect_no_stdout

# get: the value; nothing and status 1 when absent.
run drydb get items.drydb fig
expect_status 0
expect_stdout <<'EOF'
{"id":"fig","price":-5,"color":"","kind":"fruit"}
EOF
run drydb get items.drydb grape
expect_status 1
expect_no_stdout
run drydb get items.drydb -t prices -5
expect_stdout <<'EOF'
fig
EOF
run drydb get items.drydb -t prices --raw 120
expect_stdout < <(printf apple)
run drydb get items.drydb --index price --format jsonl -- -5
expect_stdout <<'EOF'
{"index_key":-5,"key":"fig","value":{"msgpack":{"id":"fig","price":-5,"color":"","kind":"fruit"}}}
EOF
run drydb get items.drydb --hex 666967 --format csv
expect_stdout <<'EOF'
key,value
666967,84a26964a3666967a57072696365fba5636f6c6f72a0a46b696e64a56672756974
EOF
run drydb get items.drydb -t prices --hex 78
expect_stdout <<'EOF'
6170706c65
EOF

# scan
run drydb scan items.drydb
expect_status 0
expect_stdout <<'EOF'
apple	{"id":"apple","price":120,"color":"red","kind":"fruit","tags":["sweet","crisp"]}
banana	{"id":"banana","price":80,"color":"yellow","kind":"fruit"}
carrot	{"id":"carrot","price":60,"color":"orange","kind":"vegetable","note":"root"}
cherry	{"id":"cherry","price":300,"color":"red","kind":"fruit"}
daikon	{"id":"daikon","price":150,"color":"white","kind":"vegetable"}
eggplant	{"id":"eggplant","price":200,"color":"purple","kind":"vegetable","note":null}
fig	{"id":"fig","price":-5,"color":"","kind":"fruit"}
EOF
run drydb scan items.drydb -t prices --format csv
expect_stdout <<'EOF'
key,value
-5,fig
60,carrot
80,banana
120,apple
150,daikon
200,eggplant
300,cherry
EOF
run drydb scan items.drydb -t prices --format tsv --desc --offset 1 --limit 2
expect_stdout <<'EOF'
key	value
200	eggplant
150	daikon
EOF
run drydb scan items.drydb -t prices --hex --limit 2
expect_stdout <<'EOF'
-5	666967
3c	636172726f74
EOF
run drydb scan items.drydb -x color
expect_stdout <<'EOF'
orange	carrot	{"id":"carrot","price":60,"color":"orange","kind":"vegetable","note":"root"}
purple	eggplant	{"id":"eggplant","price":200,"color":"purple","kind":"vegetable","note":null}
red	apple	{"id":"apple","price":120,"color":"red","kind":"fruit","tags":["sweet","crisp"]}
red	cherry	{"id":"cherry","price":300,"color":"red","kind":"fruit"}
white	daikon	{"id":"daikon","price":150,"color":"white","kind":"vegetable"}
yellow	banana	{"id":"banana","price":80,"color":"yellow","kind":"fruit"}
EOF
run drydb scan items.drydb -x price --desc --limit 2 --format jsonl
expect_stdout <<'EOF'
{"index_key":300,"key":"cherry","value":{"msgpack":{"id":"cherry","price":300,"color":"red","kind":"fruit"}}}
{"index_key":200,"key":"eggplant","value":{"msgpack":{"id":"eggplant","price":200,"color":"purple","kind":"vegetable","note":null}}}
EOF

# range: inclusive by default, * for an open end, exclusive ends, descending, offset and limit.
run drydb range items.drydb b d -t items
expect_stdout <<'EOF'
banana	{"id":"banana","price":80,"color":"yellow","kind":"fruit"}
carrot	{"id":"carrot","price":60,"color":"orange","kind":"vegetable","note":"root"}
cherry	{"id":"cherry","price":300,"color":"red","kind":"fruit"}
EOF
run drydb range items.drydb banana eggplant --exclusive-start --exclusive-end --offset 1 --limit 2 --format jsonl
expect_stdout <<'EOF'
{"key":"cherry","value":{"msgpack":{"id":"cherry","price":300,"color":"red","kind":"fruit"}}}
{"key":"daikon","value":{"msgpack":{"id":"daikon","price":150,"color":"white","kind":"vegetable"}}}
EOF
run drydb range items.drydb -t prices 100 '*' --desc
expect_stdout <<'EOF'
300	cherry
200	eggplant
150	daikon
120	apple
EOF
run drydb range items.drydb -t prices '*' 0x50
expect_stdout <<'EOF'
-5	fig
60	carrot
80	banana
EOF
run drydb range items.drydb -x price 100 200 --exclusive-end --format csv
expect_stdout <<'EOF'
index_key,key,value
120,apple,"{""msgpack"":{""id"":""apple"",""price"":120,""color"":""red"",""kind"":""fruit"",""tags"":[""sweet"",""crisp""]}}"
150,daikon,"{""msgpack"":{""id"":""daikon"",""price"":150,""color"":""white"",""kind"":""vegetable""}}"
EOF
run drydb range items.drydb -t prices 200 100
expect_status 2
expect_stderr_has "start"

# prefix: any prefix, not only a key.
run drydb prefix items.drydb c
expect_stdout <<'EOF'
carrot	{"id":"carrot","price":60,"color":"orange","kind":"vegetable","note":"root"}
cherry	{"id":"cherry","price":300,"color":"red","kind":"fruit"}
EOF
run drydb prefix items.drydb ch --format tsv
expect_stdout <<'EOF'
key	value
cherry	"{""msgpack"":{""id"":""cherry"",""price"":300,""color"":""red"",""kind"":""fruit""}}"
EOF
run drydb prefix items.drydb zz
expect_status 0
expect_no_stdout
run drydb prefix items.drydb -x kind veg --limit 2 --desc
expect_stdout <<'EOF'
vegetable	eggplant	{"id":"eggplant","price":200,"color":"purple","kind":"vegetable","note":null}
vegetable	daikon	{"id":"daikon","price":150,"color":"white","kind":"vegetable"}
EOF
run drydb prefix items.drydb -t prices 1
expect_status 2
expect_stderr_has "prefix needs byte keys; table 'prices' has int64 keys"

# count: all rows, one key, a range; tables and indexes.
run drydb count items.drydb
expect_stdout <<'EOF'
7
EOF
run drydb count items.drydb -x kind fruit
expect_stdout <<'EOF'
4
EOF
run drydb count items.drydb -t prices 0 200 --exclusive-end --format jsonl
expect_stdout <<'EOF'
{"count":4}
EOF
run drydb count items.drydb -x price '*' 100 --format csv
expect_stdout <<'EOF'
count
3
EOF

run drydb tables items.drydb
expect_stdout <<'EOF'
#  table   key encoding  rows  indexes
1  items   bytes         7     kind, color, price (unique)
2  prices  int64         7     -
EOF
run drydb tables items.drydb --format jsonl
expect_stdout <<'EOF'
{"table":"items","key_encoding":"bytes","rows":7,"indexes":[{"name":"kind","unique":false,"key_encoding":"bytes","entries":7},{"name":"color","unique":false,"key_encoding":"bytes","entries":6},{"name":"price","unique":true,"key_encoding":"int64","entries":7}]}
{"table":"prices","key_encoding":"int64","rows":7,"indexes":[]}
EOF
run drydb tables items.drydb --format csv
expect_stdout <<'EOF'
table,key_encoding,rows,indexes
items,bytes,7,kind;color;price
prices,int64,7,
EOF

run drydb info items.drydb -t prices
expect_stdout_has "page size      4,096 bytes"
expect_stdout_has "filters        none"
expect_stdout_has "current table  prices"
expect_stdout_has "key encoding   int64"
run drydb info items.drydb --format jsonl
expect_stdout_has '"format":"2.5","page_size":4096,'
expect_stdout_has '"filters":[],"tables":2,"current_table":"items"}'

run drydb stats items.drydb -t prices
expect_status 0
expect_stdout_has "compression  none (pages stored as they are; ratio 1.00)"
expect_stdout_has "table prices: 7 rows, int64 keys (longest 8 bytes)"
expect_stdout_has "per level    level 0 (root): 1"
# 7 rows: header 32 + prefixes 56 + offsets 16 + values 40 bytes = 144 of 4,096.
expect_stdout_has "fill         leaves 3.5%, internal -"
run drydb stats items.drydb --format jsonl
expect_stdout_has '{"table":"items","key_encoding":"bytes","rows":7,"depth":1,'
expect_stdout_has '{"index":"price","table":"items","unique":true,"key_encoding":"int64","rows":7,'
expect_stdout_has '{"table":"prices","key_encoding":"int64","rows":7,"depth":1,"pages":1,"leaf_pages":1,"internal_pages":0,"overflow_pages":0,"pages_per_level":[1],"leaf_fill":0.0352,'
