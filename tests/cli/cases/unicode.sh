# The build of scripts/demo.sh on Debian's UnicodeData.txt (unicode-data), and facts about it.
data=/usr/share/unicode/UnicodeData.txt
[ -r "$data" ] || skip "$data is missing (Debian package unicode-data): not tested"
run drydb build unicode.drydb --input "$data" --format csv --delimiter ';' \
  --columns code,name,category,combining,bidi,decomposition,decimal,digit,numeric,mirrored,unicode1_name,iso_comment,uppercase,lowercase,titlecase \
  --compress zstd \
  --table chars --key code --key-encoding int64 --key-radix 16 --omit-empty \
  --index category=category --index 'name=name,unique,skip=<*>' \
  --table names --key name --skip-key '<*>' --value code
expect_status 0
lines=$(wc -l < "$data")
pseudo=$(cut -d';' -f2 "$data" | grep -c '^<')
run drydb count unicode.drydb
expect_stdout < <(echo "$lines")
run drydb count unicode.drydb -t names
expect_stdout < <(echo $((lines - pseudo)))
run drydb count unicode.drydb -x name
expect_stdout < <(echo $((lines - pseudo)))
run drydb count unicode.drydb -x category Lu
expect_stdout < <(cut -d';' -f3 "$data" | grep -c '^Lu$')
run drydb get unicode.drydb 0x41
expect_stdout <<'EOF'
{"code":"0041","name":"LATIN CAPITAL LETTER A","category":"Lu","combining":"0","bidi":"L","mirrored":"N","lowercase":"0061"}
EOF
run drydb get unicode.drydb -x name SNOWMAN --format jsonl
expect_stdout <<'EOF'
{"index_key":"SNOWMAN","key":9731,"value":{"msgpack":{"code":"2603","name":"SNOWMAN","category":"So","combining":"0","bidi":"ON","mirrored":"N"}}}
EOF
run drydb get unicode.drydb -x name '<control>'
expect_status 1
run drydb prefix unicode.drydb -t names "LATIN SMALL LETTER A WITH B" --format csv
expect_stdout <<'EOF'
key,value
LATIN SMALL LETTER A WITH BREVE,0103
LATIN SMALL LETTER A WITH BREVE AND ACUTE,1EAF
LATIN SMALL LETTER A WITH BREVE AND DOT BELOW,1EB7
LATIN SMALL LETTER A WITH BREVE AND GRAVE,1EB1
LATIN SMALL LETTER A WITH BREVE AND HOOK ABOVE,1EB3
LATIN SMALL LETTER A WITH BREVE AND TILDE,1EB5
EOF
run drydb range unicode.drydb 0x30 0x39 --format csv -n 2 --hex
expect_stdout_has "30,"
run drydb verify unicode.drydb
expect_status 0
run drydb stats unicode.drydb -t chars
expect_stdout_has "compression  zstd (level 3): "
expect_stdout_has "level 0 (leaves)"
